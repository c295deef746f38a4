// Package integration holds kongsync's live-loop tests against a real etcd + kube-apiserver and
// the Kong double. They are behind the `integration` build tag: run them with
// `make test-integration` (which builds the control plane once and sets KONGSYNC_CP_BIN).
package integration
