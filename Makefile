# kongsync build, test and benchmark entry points. `make test` is what CI runs.
GO        ?= go
BIN       ?= bin
CP_BIN    ?= $(HOME)/.cache/kongsync/control-plane/bin

.PHONY: build dump test test-unit test-integration control-plane bench kic-compat fmt vet

build:
	$(GO) build -o $(BIN)/kongsync ./cmd/kongsync

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
	KONGSYNC_CP_BIN=$(CP_BIN) $(GO) test -count=1 -tags integration -timeout 30m ./test/integration/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./...

kic-compat: build
	../shared/tools/kic-compat.sh -- ./$(BIN)/kongsync dump -f

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
