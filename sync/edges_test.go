package sync

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// A replica that goes away is handed to ReplicaMetrics once its goroutine has stopped (so that
// its series can be deleted and nothing observes it again); the replica that stays is not.
func TestRemovedReplicaForgotten(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2})
	e.upsert("a", nil)
	e.converged(wait)
	kept, gone := e.kongs[0].URL(), e.kongs[1].URL()
	if err := e.loop.SetReplicas([]string{kept}); err != nil {
		t.Fatal(err)
	}
	e.wait("the removed replica forgotten", wait, func() bool {
		f, _ := e.met.replicaRecord()
		return len(f) > 0
	})
	removed := e.kongs[1]
	defer removed.Close()
	e.kongs = e.kongs[:1]
	e.upsert("b", nil)
	e.converged(wait) // the kept replica goes on being observed
	forgotten, after := e.met.replicaRecord()
	if !slices.Equal(forgotten, []string{gone}) || after[0] != 0 {
		t.Errorf("forgotten %v with %v observations after, want only %s and none", forgotten, after, gone)
	}
	var bytes int64
	for _, s := range e.met.pushStatsList() {
		if s.Result == ResultAccepted && s.Replica == kept {
			bytes = s.Bytes
		}
	}
	if bytes <= int64(len(bodyPrefix+bodySuffix)) {
		t.Errorf("accepted push of %d bytes, want the body size", bytes)
	}
}

// --kong-admin-header: sent on every request, replacing a header of the same name (a
// Kong-Admin-Token header wins over --kong-admin-token, as in KIC).
func TestAdminHeaders(t *testing.T) {
	var mu gosync.Mutex
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		_, _ = w.Write([]byte(`{"configuration_hash":"` + strings.Repeat("0", 32) + `"}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name      string
		token     string
		headers   http.Header
		wantToken string
	}{
		{"token only", "t1", nil, "t1"},
		{"header and token: header wins", "t1", http.Header{AdminTokenHeader: {"t2"}, "X-Tenant": {"a"}}, "t2"},
	} {
		rep, err := NewReplica(srv.URL, ReplicaOptions{Token: tc.token, Headers: tc.headers})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rep.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		h := got[len(got)-1]
		mu.Unlock()
		if v := h.Values(AdminTokenHeader); !slices.Equal(v, []string{tc.wantToken}) {
			t.Errorf("%s: %s = %q, want only %q", tc.name, AdminTokenHeader, v, tc.wantToken)
		}
		if want := tc.headers.Get("X-Tenant"); h.Get("X-Tenant") != want {
			t.Errorf("%s: X-Tenant = %q, want %q", tc.name, h.Get("X-Tenant"), want)
		}
	}
}

// WaitReachable: a Kong that answers passes at once; one that never answers fails after the
// given attempts with the reason; one whose version KIC v3 does not support fails at once; one
// that comes up during the retries passes.
func TestWaitReachable(t *testing.T) {
	up := kongdouble.New(kongdouble.Options{})
	defer up.Close()
	ctx := context.Background()
	if err := WaitReachable(ctx, []string{up.URL()}, ReplicaOptions{}, 3, time.Millisecond, logr.Discard()); err != nil {
		t.Errorf("reachable Kong: %v", err)
	}

	down := kongdouble.New(kongdouble.Options{})
	defer down.Close()
	down.Stop()
	err := WaitReachable(ctx, []string{up.URL(), down.URL()}, ReplicaOptions{}, 3, time.Millisecond, logr.Discard())
	if err == nil || !strings.Contains(err.Error(), down.URL()) || !strings.Contains(err.Error(), "3 attempts") ||
		strings.Contains(err.Error(), up.URL()) {
		t.Errorf("unreachable Kong: err = %v", err)
	}

	locked := kongdouble.New(kongdouble.Options{Token: "secret"})
	defer locked.Close()
	err = WaitReachable(ctx, []string{locked.URL()}, ReplicaOptions{}, 2, time.Millisecond, logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Kong refusing the token: err = %v", err)
	}

	// A Kong older than KIC v3 supports fails at once, without retries (KIC refuses it too).
	ancient := kongdouble.New(kongdouble.Options{Version: "3.3.1"})
	defer ancient.Close()
	err = WaitReachable(ctx, []string{ancient.URL()}, ReplicaOptions{}, 0, time.Hour, logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "Kong 3.3.1 is not supported") || !strings.Contains(err.Error(), ancient.URL()) {
		t.Errorf("Kong 3.3.1: err = %v", err)
	}

	// Down at the first attempt; the retry log line brings it up.
	var once gosync.Once
	log := funcr.New(func(_, _ string) {
		once.Do(func() {
			if err := down.Start(); err != nil {
				t.Error(err)
			}
		})
	}, funcr.Options{})
	if err := WaitReachable(ctx, []string{down.URL()}, ReplicaOptions{}, 0, time.Millisecond, log); err != nil {
		t.Errorf("Kong up after one failed attempt, no attempt limit: %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	down.Stop()
	if err := WaitReachable(cctx, []string{down.URL()}, ReplicaOptions{}, 0, time.Hour, logr.Discard()); err == nil {
		t.Error("cancelled context: no error")
	}
}
