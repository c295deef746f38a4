#!/usr/bin/env bash
# Whole-process benchmark of `kongsync dump -f` on the genworkload file of N Ingresses
# (default 10000: 30,001 manifests): wall time, CPU time and max RSS from /usr/bin/time -v,
# repeated RUNS times (default 5). Prints one line per run and the medians.
# Usage: hack/bench-dump.sh [N] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/kongsync" ./cmd/kongsync
go run ./cmd/genworkload -ingresses "$n" >"$work/w.yaml"
echo "input: $(du -h "$work/w.yaml" | cut -f1) ($n Ingresses, $(grep -c '^kind:' "$work/w.yaml") manifests)"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg)"
walls=() cpus=() rss=()
for i in $(seq "$runs"); do
	/usr/bin/time -v "$work/kongsync" dump -f "$work/w.yaml" >"$work/out.yaml" 2>"$work/time.txt"
	w=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (t[1] * 60 + t[2])}' "$work/time.txt")
	c=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u + s}' "$work/time.txt")
	r=$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$work/time.txt")
	walls+=("$w") cpus+=("$c") rss+=("$r")
	echo "run $i: wall ${w}s cpu ${c}s maxrss ${r}MiB"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
echo "median: wall $(median "${walls[@]}")s cpu $(median "${cpus[@]}")s maxrss $(median "${rss[@]}")MiB; output $(wc -c <"$work/out.yaml") bytes"
