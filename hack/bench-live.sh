#!/usr/bin/env bash
# Live-loop benchmarks of issue 4 (docs/benchmarks.md, "Live loop"): a real etcd +
# kube-apiserver (the test/integration harness), loaded once with N Ingresses + Services +
# EndpointSlices and SECRETS unrelated 256 KiB Opaque Secrets by client-go (8 writers, no rate
# limit); the real `kongsync run` binary as a child process pushing to an in-process Kong double.
# Reports start → first complete push, VmHWM/VmRSS and idle CPU (from /proc/PID), API write →
# POST latency (CHANGES one-at-a-time updates per run) and pushes per burst of 1,000 updates.
# About 13 minutes at the defaults on 2 loaded cores: loading takes ~3 min and each of the 200
# one-at-a-time changes ~2.4 s, mostly the in-process double validating the 10k-service POST.
# Usage: hack/bench-live.sh [N] [SECRETS] [COUNT]   (defaults 10000 2000 1; raw output in
# $BENCH_LIVE_OUT, default bench-live.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
secrets=${2:-2000}
count=${3:-1}
out=${BENCH_LIVE_OUT:-bench-live.txt}
export KONGSYNC_CP_BIN=${KONGSYNC_CP_BIN:-$HOME/.cache/kongsync/control-plane/bin}
export KONGSYNC_BENCH_N=$n KONGSYNC_BENCH_SECRETS=$secrets KONGSYNC_BENCH_CHANGES=${CHANGES:-200}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
go test -tags integration -run '^$' -bench 'Live' -benchtime 1x -count "$count" -timeout 30m ./test/integration/ 2>&1 | tee -a "$out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
