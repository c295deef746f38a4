#!/usr/bin/env bash
# Live-loop benchmarks of issues 4 and 12 (docs/benchmarks.md, "Live loop" and "Issue 12"): a
# real etcd + kube-apiserver (the test/integration harness), loaded once with N route objects
# (KIND=ingress: Ingresses; KIND=httproute: genworkload -httproutes N, i.e. one GatewayClass and
# Gateway and N HTTPRoutes, after the Gateway API CRDs of the standard channel), each with its
# Service + EndpointSlice, and SECRETS unrelated 256 KiB Opaque Secrets, by client-go (8 writers,
# no rate limit); the real `kongsync run` binary as a child process pushing to an in-process Kong
# double. Reports start → first complete push, VmHWM/VmRSS and idle CPU (from /proc/PID), API
# write → POST latency (CHANGES one-at-a-time updates per run) and pushes per burst of 1,000
# updates.
# About 13 minutes at the defaults on 2 loaded cores: loading takes ~3 min and each of the 200
# one-at-a-time changes ~2.4 s, mostly the in-process double validating the 10k-service POST.
# Usage: [KIND=ingress|httproute] [CHANGES=200] [BENCH=Live] hack/bench-live.sh [N] [SECRETS] [COUNT]
# (defaults 10000, 2000 for Ingresses and 0 for HTTPRoutes, 1; BENCH is the -bench pattern;
# raw output in $BENCH_LIVE_OUT, default bench-live.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${KIND:-ingress}
case $kind in
ingress) def_secrets=2000 ;;
httproute) def_secrets=0 ;;
*) echo "KIND=$kind: want ingress or httproute" >&2; exit 2 ;;
esac
n=${1:-10000}
secrets=${2:-$def_secrets}
count=${3:-1}
out=${BENCH_LIVE_OUT:-bench-live.txt}
export KONGSYNC_CP_BIN=${KONGSYNC_CP_BIN:-$HOME/.cache/kongsync/control-plane/bin}
export KONGSYNC_BENCH_KIND=$kind KONGSYNC_BENCH_N=$n KONGSYNC_BENCH_SECRETS=$secrets KONGSYNC_BENCH_CHANGES=${CHANGES:-200}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg); kind $kind, N $n, secrets $secrets, changes $KONGSYNC_BENCH_CHANGES, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)" | tee "$out"
go test -tags integration -run '^$' -bench "${BENCH:-Live}" -benchtime 1x -count "$count" -timeout 60m ./test/integration/ 2>&1 | tee -a "$out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
