#!/usr/bin/env bash
# Before/after benchmark of the engine (issue 21): builds internal/perf's benchmark binary and
# kongsync of BASE (a git ref, checked out in a temporary worktree) and of the working tree,
# then runs them interleaved — base, head, base, head, … ROUNDS times — so that the machine's
# drift and other load fall on both sides alike. Prints benchstat's table (time, cpu-ms, B/op,
# allocs/op) and, from the same rounds, `kongsync dump` of N Ingresses as a whole process (wall
# time and max RSS, from /usr/bin/time -v), after checking that both write the same bytes.
#
# Usage: hack/bench-compare.sh BASE   (make bench-compare BASE=<ref>)
#   ROUNDS (default 6)            interleaved rounds; benchstat wants ≥ 6 for its confidence
#   BENCH (default below)         the benchmarks, a go test -bench regexp; one that BASE lacks runs
#                                 on the head side alone, and the summary names it
#   BENCHTIME (default 20x)       each benchmark's -benchtime per round; the one-change benchmarks
#                                 need ≥ 20 (their first op pays for warming the engine, which
#                                 3x spreads over too few ops: +45 % where 40x shows +8 %)
#   N (default 10000)             Ingresses for the dump comparison (0: skip it)
#   BENCHSTAT                     the benchstat command (default: go run golang.org/x/perf/cmd/benchstat@latest)
#   OUT                           keep the raw results in this directory (default: a temp dir, removed)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: hack/bench-compare.sh BASE}
rounds=${ROUNDS:-6}
bench=${BENCH:-'^Benchmark(FullBuild|Floor|Incremental|GatewayFullBuild|GatewayIncremental|Consumers)$/n=10000$'}
benchtime=${BENCHTIME:-20x}
n=${N:-10000}
benchstat=${BENCHSTAT:-go run golang.org/x/perf/cmd/benchstat@latest}

work=$(mktemp -d)
out=${OUT:-$work/out}
mkdir -p "$out"
tree="$work/base"
cleanup() {
	git worktree remove --force "$tree" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

baserev=$(git rev-parse --short "$base^{commit}")
headrev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo +dirty)"
git worktree add --detach --quiet "$tree" "$baserev"

# One build at a time: the machine may have two cores.
build() { # dir label
	(cd "$1" && go test -c -o "$work/$2.perf.test" ./internal/perf/ && go build -o "$work/$2.kongsync" ./cmd/kongsync)
}
echo "building base $baserev and head $headrev" >&2
build "$tree" base
build . head

if [[ $n -gt 0 ]]; then
	go run ./cmd/genworkload -ingresses "$n" >"$work/w.yaml"
	for side in base head; do
		"$work/$side.kongsync" dump -f "$work/w.yaml" >"$work/$side.out" 2>/dev/null || true
	done
	if cmp -s "$work/base.out" "$work/head.out"; then
		same="same output ($(wc -c <"$work/head.out") bytes)"
	else
		same="OUTPUTS DIFFER ($(wc -c <"$work/base.out") vs $(wc -c <"$work/head.out") bytes)"
	fi
fi

# dumpRun appends one benchstat-format line for one whole-process dump.
dumpRun() { # side
	/usr/bin/time -v "$work/$1.kongsync" dump -f "$work/w.yaml" >/dev/null 2>"$work/time.txt" || true
	awk -F': ' -v n="$n" '
		/Elapsed \(wall clock\)/ {split($2, t, ":"); wall = (t[1] * 60 + t[2]) * 1e9}
		/User time/ {u = $2} /System time/ {s = $2}
		/Maximum resident/ {rss = $2 * 1024}
		END {printf "BenchmarkDumpProcess/n=%d 1 %.0f ns/op %.1f cpu-ms/op %.0f maxrss-B\n", n, wall, (u + s) * 1000, rss}
	' "$work/time.txt" >>"$out/$1.txt"
}

{
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3)"
	echo "base $baserev, head $headrev; $rounds interleaved rounds of -bench '$bench' -benchtime $benchtime$([[ $n -gt 0 ]] && echo " and dump of $n Ingresses")"
} | tee "$out/header.txt"
for r in $(seq "$rounds"); do
	echo "round $r/$rounds (load $(cut -d' ' -f1 /proc/loadavg))" >&2
	for side in base head; do
		dir=.
		[[ $side == base ]] && dir=$tree
		(cd "$dir/internal/perf" && "$work/$side.perf.test" -test.run '^$' -test.bench "$bench" -test.benchmem \
			-test.benchtime "$benchtime" -test.count 1 -test.timeout 60m) | { grep -E '^(Benchmark|goos|goarch|pkg|cpu)' || true; } >>"$out/$side.txt"
		[[ $n -gt 0 ]] && dumpRun "$side"
	done
done

[[ $n -gt 0 ]] && echo "dump of $n Ingresses: $same"
# A benchmark one side lacks (BASE older than it) is named here; benchstat shows its other side.
names() { awk '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); print $1}' "$1" | sort -u; }
for side in base head; do
	other=head
	[[ $side == head ]] && other=base
	only=$(comm -23 <(names "$out/$side.txt") <(names "$out/$other.txt") | tr '\n' ' ')
	[[ -n $only ]] && echo "only in $side ($([[ $side == base ]] && echo "$baserev" || echo "$headrev")): $only"
done
# shellcheck disable=SC2086
$benchstat base="$out/base.txt" head="$out/head.txt"
[[ -n ${OUT:-} ]] && echo "raw results in $out" >&2
exit 0
