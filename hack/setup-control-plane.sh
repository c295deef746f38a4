#!/usr/bin/env bash
# Builds (once) and caches the real control plane kongsync's integration tests run against:
#   etcd, kube-apiserver, kubectl  ->  BIN_DIR  (also usable as KUBEBUILDER_ASSETS)
# Needs only Go and the Go module proxy: no Docker, no downloads from elsewhere.
#
# Usage: hack/setup-control-plane.sh [BIN_DIR]
#   BIN_DIR       default ~/.cache/kongsync/control-plane/bin
# Env:
#   K8S_VERSION   (1.37.2) k8s.io/kubernetes version; staging modules are pinned at v0.<minor>.<patch>
#   ETCD_VERSION  (3.7.3)  go.etcd.io/etcd/server/v3 version
#   WITH_KUBECTL  (1)      also build kubectl (the dump-equivalence test uses it)
#   TOOLS_DIR     (~/.cache/kongsync/control-plane/tools) generated tool modules
# Idempotent: a binary whose --version already matches is kept, so a warm run takes ~0 s.
# Cold: ~4-9 min and ~3 GiB of GOCACHE on 2 cores (the kube-apiserver link dominates).
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.37.2}; K8S_VERSION=${K8S_VERSION#v}
ETCD_VERSION=${ETCD_VERSION:-3.7.3}; ETCD_VERSION=${ETCD_VERSION#v}
WITH_KUBECTL=${WITH_KUBECTL:-1}
CACHE_ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/kongsync/control-plane
BIN_DIR=${1:-${BIN_DIR:-$CACHE_ROOT/bin}}
TOOLS_DIR=${TOOLS_DIR:-$CACHE_ROOT/tools}
mkdir -p "$BIN_DIR"; BIN_DIR=$(cd "$BIN_DIR" && pwd)
# The generated tool modules are not the project's module: let go resolve them freely.
export GOFLAGS="${GOFLAGS:-} -mod=mod"
export GOWORK=off

IFS=. read -r K_MAJOR K_MINOR K_PATCH <<<"$K8S_VERSION"
STAGING_VERSION="v0.${K_MINOR}.${K_PATCH}"   # 1.37.2 -> v0.37.2

log() { echo "[setup-control-plane] $*" >&2; }

etcd_ok() {
  # Read the whole output before matching: with pipefail, `etcd --version | grep -q` fails
  # whenever grep exits before etcd has written its last line (SIGPIPE), and etcd was rebuilt.
  [[ -x $BIN_DIR/etcd ]] || return 1
  local v; v=$("$BIN_DIR/etcd" --version 2>/dev/null || true)
  grep -q "etcd Version: $ETCD_VERSION\$" <<<"$v"
}

k8s_ok() { # $1 = kube-apiserver|kubectl
  [[ -x $BIN_DIR/$1 ]] || return 1
  local v; v=$("$BIN_DIR/$1" --version 2>/dev/null || "$BIN_DIR/$1" version --client 2>/dev/null || true)
  grep -q "v$K8S_VERSION\$" <<<"$v"
}

all_ok() {
  etcd_ok && k8s_ok kube-apiserver && { [[ $WITH_KUBECTL != 1 ]] || k8s_ok kubectl; }
}

build_etcd() {
  if etcd_ok; then log "etcd $ETCD_VERSION already in $BIN_DIR"; return; fi
  local d=$TOOLS_DIR/etcd-$ETCD_VERSION; mkdir -p "$d"
  printf 'module local.test/tools/etcd\n\ngo 1.26.0\n' >"$d/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$d/tools.go"
  log "building etcd $ETCD_VERSION (cold: ~45 s on 2 cores)"
  # go get lists every module it adds on stderr; show its output only if it fails.
  local out
  out=$(cd "$d" && go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" 2>&1 && go mod tidy 2>&1) || { echo "$out" >&2; exit 1; }
  (cd "$d" && go build -trimpath -ldflags="-s -w" -o "$BIN_DIR/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$BIN_DIR/etcd.tmp" "$BIN_DIR/etcd"
}

# k8s_module writes a tools module requiring k8s.io/kubernetes with every staging module it
# requires at v0.0.0 replaced by the published v0.<minor>.<patch> (Go ignores the replace
# directives of a dependency's go.mod, so kubernetes cannot be built as a plain dependency).
k8s_module() {
  local d=$TOOLS_DIR/k8s-$K8S_VERSION
  if [[ ! -f $d/go.sum ]]; then
    mkdir -p "$d"
    local gomod
    gomod=$(cd "$d" && GOFLAGS= go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    [[ -f $gomod ]] || { log "could not download k8s.io/kubernetes@v$K8S_VERSION"; exit 1; }
    {
      printf 'module local.test/tools/k8s\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "$K8S_VERSION"
      awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&$2=="v0.0.0"{print $1}' "$gomod" | sort -u |
        while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done
      printf ')\n'
    } >"$d/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/cmd/kubectl"\n)\n' >"$d/tools.go"
    log "resolving k8s.io/kubernetes v$K8S_VERSION module graph"
    (cd "$d" && go mod tidy >/dev/null 2>&1) || { log "go mod tidy failed in $d"; (cd "$d" && go mod tidy); exit 1; }
  fi
  echo "$d"
}

build_k8s() { # $1 = kube-apiserver|kubectl
  local name=$1
  if k8s_ok "$name"; then log "$name v$K8S_VERSION already in $BIN_DIR"; return; fi
  local d; d=$(k8s_module)
  local V=v$K8S_VERSION pkg=k8s.io/component-base/version cpkg=k8s.io/client-go/pkg/version
  # Without these stamps /version reports v0.0.0-master and the idempotency check never matches.
  local ldf="-s -w -X $pkg.gitVersion=$V -X $pkg.gitMajor=$K_MAJOR -X $pkg.gitMinor=$K_MINOR -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  ldf+=" -X $cpkg.gitVersion=$V -X $cpkg.gitMajor=$K_MAJOR -X $cpkg.gitMinor=$K_MINOR -X $cpkg.gitTreeState=clean"
  log "building $name $V (cold, 2 cores: kube-apiserver ~3.5-8 min, kubectl ~20 s after it)"
  (cd "$d" && go build -trimpath -ldflags="$ldf" -o "$BIN_DIR/$name.tmp" "k8s.io/kubernetes/cmd/$name")
  mv "$BIN_DIR/$name.tmp" "$BIN_DIR/$name"
}

if all_ok; then log "up to date in $BIN_DIR"; exit 0; fi
command -v go >/dev/null || { log "go not found"; exit 1; }
# Two concurrent runs (a developer and CI on one machine) would build everything twice on the
# same cores; serialise them and re-check after the wait.
if command -v flock >/dev/null; then
  exec 9>"$BIN_DIR/.setup.lock"
  flock 9
  if all_ok; then log "up to date in $BIN_DIR (built by a concurrent run)"; exit 0; fi
fi
build_etcd
build_k8s kube-apiserver
if [[ $WITH_KUBECTL == 1 ]]; then build_k8s kubectl; fi
log "done: $(ls "$BIN_DIR" | tr '\n' ' ')"
log "export KUBEBUILDER_ASSETS=$BIN_DIR"
