#!/usr/bin/env bash
# Issue 23's must-show: Kong's expressions router against the traditional one, interleaved in
# one run. Builds internal/perf's benchmark binary and kongsync of the working tree, then ROUNDS
# times, in turn: BenchmarkIngressFlavors and BenchmarkGatewayFlavors (full build and one change
# at 10k, each flavor) and `kongsync dump` of 10k Ingresses and of 10k HTTPRoutes under each
# flavor (wall, CPU and max RSS from /usr/bin/time -v, after checking each dump succeeds).
# Prints benchstat's table and, per measure, the medians and expressions / traditional.
#
# Usage: hack/bench-flavors.sh   (make bench-flavors)
#   ROUNDS (default 6)      interleaved rounds
#   BENCHTIME (default 20x) each benchmark's -benchtime per round (one-change benchmarks want ≥ 20)
#   N (default 10000)       Ingresses and HTTPRoutes in the dump workloads
#   BENCHSTAT               the benchstat command (default: go run golang.org/x/perf/cmd/benchstat@latest)
#   OUT                     keep the raw results in this directory (default: a temp dir, removed)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-6}
benchtime=${BENCHTIME:-20x}
n=${N:-10000}
benchstat=${BENCHSTAT:-go run golang.org/x/perf/cmd/benchstat@latest}
bench='^Benchmark(IngressFlavors|GatewayFlavors)$'
flavors=(traditional_compatible expressions)

work=$(mktemp -d)
out=${OUT:-$work/out}
mkdir -p "$out"
trap 'rm -rf "$work"' EXIT

echo "building $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo +dirty)" >&2
go test -c -o "$work/perf.test" ./internal/perf/
go build -o "$work/kongsync" ./cmd/kongsync
go run ./cmd/genworkload -ingresses "$n" >"$work/ingress.yaml"
go run ./cmd/genworkload -httproutes "$n" >"$work/httproute.yaml"

# dumpRun appends one benchstat-format line for one whole-process dump.
dumpRun() { # workload flavor
	/usr/bin/time -v "$work/kongsync" dump --router-flavor "$2" -f "$work/$1.yaml" >"$work/dump.out" 2>"$work/time.txt" || true
	[[ -s $work/dump.out ]] || { echo "dump of $1 under $2 wrote nothing" >&2; exit 1; }
	awk -F': ' -v name="BenchmarkDumpProcess/$1/n=$n/$2" '
		/Elapsed \(wall clock\)/ {split($2, t, ":"); wall = (t[1] * 60 + t[2]) * 1e9}
		/User time/ {u = $2} /System time/ {s = $2}
		/Maximum resident/ {rss = $2 * 1024}
		END {printf "%s 1 %.0f ns/op %.1f cpu-ms/op %.0f maxrss-B\n", name, wall, (u + s) * 1000, rss}
	' "$work/time.txt" >>"$out/all.txt"
}

{
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3)"
	echo "$(git rev-parse --short HEAD); $rounds interleaved rounds of -bench '$bench' -benchtime $benchtime and dumps of $n objects"
} | tee "$out/header.txt"
for r in $(seq "$rounds"); do
	echo "round $r/$rounds (load $(cut -d' ' -f1 /proc/loadavg))" >&2
	(cd internal/perf && "$work/perf.test" -test.run '^$' -test.bench "$bench" -test.benchmem -test.benchtime "$benchtime" \
		-test.count 1 -test.timeout 60m) | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$out/all.txt"
	for w in ingress httproute; do
		for f in "${flavors[@]}"; do
			dumpRun "$w" "$f"
		done
	done
done

# shellcheck disable=SC2086
$benchstat "$out/all.txt"
echo
echo "medians, expressions / traditional_compatible:"
# median NAME UNIT: the median of one measure of one benchmark over the rounds.
median() {
	awk -v name="$1" -v unit="$2" '$1 ~ "^" name "(-[0-9]+)?$" {for (i = 3; i < NF; i += 2) if ($(i + 1) == unit) print $i}' "$out/all.txt" |
		sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
for m in IngressFlavors/full/n=10000 IngressFlavors/change/n=10000 GatewayFlavors/full/n=10000 \
	GatewayFlavors/change/n=10000/route-05000 GatewayFlavors/change/n=10000/route-00010 \
	GatewayFlavors/change/n=10000/route-00010-move "DumpProcess/ingress/n=$n" "DumpProcess/httproute/n=$n"; do
	for unit in ns/op cpu-ms/op; do
		t=$(median "Benchmark$m/traditional_compatible" "$unit")
		x=$(median "Benchmark$m/expressions" "$unit")
		awk -v m="$m" -v u="$unit" -v t="$t" -v x="$x" 'BEGIN {
			s = (u == "ns/op") ? 1e6 : 1; r = (t + 0 > 0) ? sprintf("%.3f", x / t) : "-"
			printf "%-48s %-9s traditional %9.2f  expressions %9.2f  ratio %s\n", m, (u == "ns/op") ? "wall-ms" : u, t / s, x / s, r }'
	done
done
[[ -n ${OUT:-} ]] && echo "raw results in $out" >&2
exit 0
