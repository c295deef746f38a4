#!/usr/bin/env bash
# Start/stop a loopback-only etcd + kube-apiserver for integration tests.
#   hack/run-control-plane.sh start [DATA_DIR]   -> prints KUBECONFIG path, waits for /readyz
#   hack/run-control-plane.sh stop  [DATA_DIR]
# Env: BIN_DIR (default ~/.cache/kongsync/control-plane/bin, as hack/setup-control-plane.sh),
#      ETCD_PORT, APISERVER_PORT (default: random free), APISERVER_TOKEN (default: random).
set -euo pipefail
BIN_DIR=${BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kongsync/control-plane/bin}
CMD=${1:-start}
DIR=${2:-${TMPDIR:-/tmp}/kongsync-cp}

freeport() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  else  # random port that nothing answers on
    local p; while :; do p=$((20000 + RANDOM % 40000)); (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }; done
  fi
}

# A process whose parent (here: PID 1 after the start script exits) has not reaped it yet is a
# zombie; kill -0 still succeeds on it, so look at /proc state instead.
alive() { [[ -d /proc/$1 ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

stop() {
  for p in apiserver etcd; do
    if [[ -f $DIR/$p.pid ]]; then
      pid=$(cat "$DIR/$p.pid")
      if alive "$pid"; then
        kill -TERM "$pid"
        for _ in $(seq 1 200); do alive "$pid" || break; sleep 0.05; done
        alive "$pid" && kill -KILL "$pid" || true
      fi
      rm -f "$DIR/$p.pid"
    fi
  done
}

if [[ $CMD == stop ]]; then stop; exit 0; fi
for b in etcd kube-apiserver; do
  [[ -x $BIN_DIR/$b ]] || { echo "$BIN_DIR/$b missing: run hack/setup-control-plane.sh" >&2; exit 1; }
done

mkdir -p "$DIR"
stop   # idempotent restart
rm -rf "$DIR/etcd-data" "$DIR/certs"
mkdir -p "$DIR/certs"
ETCD_PORT=${ETCD_PORT:-$(freeport)}
ETCD_PEER_PORT=$(freeport)
APISERVER_PORT=${APISERVER_PORT:-$(freeport)}
TOKEN=${APISERVER_TOKEN:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}

# Service-account signing key (required flag since 1.20).
openssl genrsa -out "$DIR/certs/sa.key" 2048 2>/dev/null
openssl rsa -in "$DIR/certs/sa.key" -pubout -out "$DIR/certs/sa.pub" 2>/dev/null
# Static bearer token in system:masters (full access even under RBAC).
echo "$TOKEN,admin,admin,system:masters" > "$DIR/certs/tokens.csv"

T0=$(date +%s.%N)
"$BIN_DIR/etcd" --name=test --data-dir="$DIR/etcd-data" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="test=http://127.0.0.1:$ETCD_PEER_PORT" \
  --unsafe-no-fsync --quota-backend-bytes=2147483648 --log-level=warn \
  >"$DIR/etcd.log" 2>&1 &
echo $! > "$DIR/etcd.pid"

# kube-apiserver generates a self-signed serving cert (CA+leaf chain) into --cert-dir.
"$BIN_DIR/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
  --cert-dir="$DIR/certs" \
  --token-auth-file="$DIR/certs/tokens.csv" \
  --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$DIR/certs/sa.pub" \
  --service-account-signing-key-file="$DIR/certs/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 \
  --disable-admission-plugins=ServiceAccount \
  --allow-privileged=true \
  --endpoint-reconciler-type=none \
  >"$DIR/apiserver.log" 2>&1 &
echo $! > "$DIR/apiserver.pid"

URL="https://127.0.0.1:$APISERVER_PORT"
for _ in $(seq 1 600); do
  if [[ -f $DIR/certs/apiserver.crt ]] && \
     curl -fsS --cacert "$DIR/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" "$URL/readyz" >/dev/null 2>&1; then
    break
  fi
  if ! alive "$(cat "$DIR/apiserver.pid")"; then
    echo "kube-apiserver died; see $DIR/apiserver.log" >&2; tail -20 "$DIR/apiserver.log" >&2; exit 1
  fi
  sleep 0.1
done
curl -fsS --cacert "$DIR/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" "$URL/readyz" >/dev/null
T1=$(date +%s.%N)

cat > "$DIR/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: $URL
    certificate-authority: $DIR/certs/apiserver.crt
users:
- name: admin
  user:
    token: $TOKEN
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
KC
printf 'ready in %.2fs: KUBECONFIG=%s\n' "$(awk -v a="$T0" -v b="$T1" 'BEGIN{print b-a}')" "$DIR/kubeconfig" >&2
echo "$DIR/kubeconfig"
