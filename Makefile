# kongsync build, test and benchmark entry points. `make test` is what CI runs.
GO        ?= go
BIN       ?= bin
CP_BIN    ?= $(HOME)/.cache/kongsync/control-plane/bin

.PHONY: build image dump test test-unit test-integration test-integration-race control-plane soak bench bench-live bench-compare bench-flavors kic-compat fmt vet

VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

build:
	$(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION)" -o $(BIN)/kongsync ./cmd/kongsync

# The container image as a docker-save tarball (docker/podman load, crane push): static binary,
# nonroot 65532, CA bundle, no shell; every time in it is SOURCE_DATE_EPOCH (default: the HEAD
# commit's time), so two builds of one commit give the same digest, which it prints.
IMAGE_TAR ?= $(BIN)/kongsync-image.tar
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
image:
	$(GO) run ./hack/image -out $(IMAGE_TAR) -version $(VERSION)

# Builds kongsync and prints the kong.yaml of the bundled examples.
dump: build
	./$(BIN)/kongsync dump -f examples/

test: test-unit test-integration

test-unit:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Builds (once, cached) and uses a real etcd + kube-apiserver for the live-loop tests.
control-plane:
	./hack/setup-control-plane.sh $(CP_BIN)

test-integration: control-plane
	$(GO) vet -tags integration ./test/integration/...
	KONGSYNC_CP_BIN=$(CP_BIN) $(GO) test -count=1 -tags integration -timeout 30m ./test/integration/...

# The soak of issue 15 (docs/reliability.md): random changes and faults against two Kong doubles
# and two elected kongsyncs on the real apiserver, invariants checked after every phase. Not part
# of `make test` (which runs a 60 s variant). SOAK_SEED (default random) replays a schedule;
# on a violation the evidence directory (under SOAK_OUT, default $TMPDIR) is printed.
SOAK_DURATION ?= 30m
SOAK_SEED     ?=
soak: control-plane
	KONGSYNC_CP_BIN=$(CP_BIN) SOAK_DURATION=$(SOAK_DURATION) SOAK_SEED=$(SOAK_SEED) \
		$(GO) test -count=1 -tags integration -run '^TestSoak$$' -v -timeout 6h ./test/integration/

# Benchmarks of issue 4 (docs/benchmarks.md): full build and its stages at n=100..10000 repeated
# BENCH_COUNT times, n=100000 once per run (-benchtime=1x), manifest decoding and the in-process
# dump; raw results in $(BENCH_OUT), medians via benchstat. hack/bench-dump.sh measures the
# whole `kongsync dump` process (wall time, max RSS).
BENCH_COUNT ?= 5
BENCH_OUT   ?= bench.txt
BENCHSTAT   ?= $(GO) run golang.org/x/perf/cmd/benchstat@latest

# The integration tests under the race detector (slower; not part of `make test`).
test-integration-race: control-plane
	KONGSYNC_CP_BIN=$(CP_BIN) $(GO) test -race -count=1 -tags integration -timeout 30m ./test/integration/...

# Live-loop benchmarks of issues 4 and 12 (real apiserver, real `kongsync run`, Kong double;
# about 13 minutes at N=10000 with 2,000 x 256 KiB Secrets). BENCH_LIVE_KIND=httproute loads
# genworkload's N HTTPRoutes on one Gateway instead of Ingresses. Not part of `make test`.
BENCH_LIVE_KIND ?= ingress
bench-live: control-plane
	KONGSYNC_CP_BIN=$(CP_BIN) KIND=$(BENCH_LIVE_KIND) hack/bench-live.sh

bench:
	$(GO) test -run '^$$' -bench '/n=(100|1000|10000)$$' -benchmem -count $(BENCH_COUNT) -timeout 60m ./internal/perf/ | tee $(BENCH_OUT)
	$(GO) test -run '^$$' -bench '/n=100000$$' -benchtime 1x -benchmem -count $(BENCH_COUNT) -timeout 60m ./internal/perf/ | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench 'Decode|Dump|Incremental' -benchmem -benchtime 3x -count $(BENCH_COUNT) -timeout 60m ./store/ ./internal/perf/ | tee -a $(BENCH_OUT)
	$(BENCHSTAT) $(BENCH_OUT)

# Before/after of the engine (issue 21): BASE's and the working tree's benchmark binaries and
# kongsync, run interleaved; benchstat's table and whole-process dump time and RSS at 10k
# (docs/benchmarks.md). ROUNDS, BENCH, BENCHTIME, N and OUT tune it (hack/bench-compare.sh).
BASE ?=
bench-compare:
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<git ref>" >&2; exit 2; }
	BENCHSTAT="$(BENCHSTAT)" hack/bench-compare.sh $(BASE)

# Issue 23's must-show: the expressions router against the traditional one at 10k Ingresses and
# 10k HTTPRoutes (full build, one change, whole `kongsync dump`), interleaved; ROUNDS, BENCHTIME,
# N and OUT tune it (hack/bench-flavors.sh).
bench-flavors:
	BENCHSTAT="$(BENCHSTAT)" hack/bench-flavors.sh

# KIC's corpus offline; its fallback-config-* cases, which kic-compat.sh skips (they need a Kong
# that rejects objects), run through the live sync loop against the Kong double (docs/sync.md,
# "Fallback").
kic-compat: build
	../shared/tools/kic-compat.sh -- ./$(BIN)/kongsync dump -f
	$(GO) test -count=1 -run TestKICFallbackGoldenLive ./sync/

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
