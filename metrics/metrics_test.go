package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

func TestReporterEmitsNewProblemsOnce(t *testing.T) {
	r, rec, ref := serviceReporter(t)
	p := translator.Problem{Object: ref, Field: "metadata.annotations[konghq.com/retries]", Reason: "not a number"}
	r.TranslationProblems([]translator.Problem{p})
	r.TranslationProblems([]translator.Problem{p}) // same problem again: no new Event
	r.KongRejected([]kongsync.Rejection{{Object: ref, Replica: "http://kong:8001"}})
	r.TranslationProblems([]translator.Problem{{Object: store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "gone"}, Reason: "x"}})
	r.ReplicaFailed("http://kong:8001", kongsync.ResultTooLarge, errors.New("413"))
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	if len(got) != 2 {
		t.Fatalf("events = %q, want one translation and one apply failure", got)
	}
	if !strings.HasPrefix(got[0], "Warning "+ReasonTranslationFailed+" metadata.annotations[konghq.com/retries]: not a number") ||
		!strings.HasPrefix(got[1], "Warning "+ReasonApplyFailed+" Kong http://kong:8001 rejected") {
		t.Errorf("events = %q", got)
	}
}

// An object deleted and created again under its name (a new UID) with the same problem, both in
// one build's window, gets an Event of its own: Events are found by UID (kubectl describe).
func TestReporterReportsProblemAgainOnRecreatedObject(t *testing.T) {
	st := store.New()
	ing := func(uid types.UID) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", UID: uid, ResourceVersion: string(uid)}}
	}
	if _, err := st.Upsert(ing("uid-1")); err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(10)
	r := NewReporter(rec, st, logr.Discard())
	p := translator.Problem{Object: store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "web"},
		Field: "spec.tls[0].secretName", Reason: "Secret a/none not found"}
	r.TranslationProblems([]translator.Problem{p})
	r.TranslationProblems([]translator.Problem{p}) // unchanged object: no repeat
	if _, err := st.Upsert(ing("uid-2")); err != nil {
		t.Fatal(err)
	}
	r.TranslationProblems([]translator.Problem{p}) // re-created: the new object gets its Event
	r.TranslationProblems([]translator.Problem{p})
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	if len(got) != 2 {
		t.Fatalf("events = %q, want one per incarnation of the Ingress", got)
	}
}

func TestReplicaFailedEventOnOwnPod(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	r := NewReporter(rec, store.New(), logr.Discard())
	r.ReplicaFailed("http://kong:8001", kongsync.ResultTooLarge, errors.New("config too large"))
	r.SetPod("kong", "kong-7d9f")
	r.ReplicaFailed("http://kong:8001", kongsync.ResultTooLarge, errors.New("config too large"))
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	want := "Warning " + ReasonPushFailed + " Kong http://kong:8001 did not take the configuration (" + string(kongsync.ResultTooLarge) + "): config too large"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("events = %q, want only %q (none before the Pod is known)", got, want)
	}
}

func TestPrometheusAndHealth(t *testing.T) {
	p := New()
	p.ObserveTranslation(kongsync.TranslationStats{Duration: time.Millisecond, Objects: 7, Problems: 2, ConfigBytes: 1234})
	p.ObservePush(kongsync.PushStats{Replica: "http://kong:8001", Result: kongsync.ResultAccepted, Duration: 5 * time.Millisecond})
	p.ObservePush(kongsync.PushStats{Replica: "http://kong:8001", Result: kongsync.ResultAccepted, Duration: 5 * time.Millisecond})
	p.ObserveProbe("http://kong:8001", true, false)
	p.ObserveChangeToPost("http://kong:8001", 115*time.Millisecond)
	p.ObservePush(kongsync.PushStats{Replica: "http://kong:8001", Result: kongsync.ResultAccepted, LoadCost: 1500 * time.Millisecond})
	p.ObservePush(kongsync.PushStats{Replica: "http://kong:8001", Result: kongsync.ResultUnchanged, LoadCost: 500 * time.Millisecond})
	p.ObserveDeferred("http://kong:8001", kongsync.PaceLoadBudget)
	p.ObserveDeferred("http://kong:8001", kongsync.PaceInterval)
	p.ObserveDeferred("http://kong:8001", kongsync.PaceLoadBudget)
	ready := false
	h := HealthHandler(func() bool { return ready })
	for _, tc := range []struct {
		path  string
		ready bool
		want  int
	}{{"/healthz", false, 200}, {"/readyz", false, 503}, {"/readyz", true, 200}} {
		ready = tc.ready
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if w.Code != tc.want {
			t.Errorf("%s (ready=%v) = %d, want %d", tc.path, tc.ready, w.Code, tc.want)
		}
	}
	w := httptest.NewRecorder()
	MetricsHandler(p.Registry).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{"kongsync_config_bytes 1234", "kongsync_translation_objects 7",
		`kongsync_pushes_total{replica="http://kong:8001",result="accepted"} 3`,
		`kongsync_kong_load_seconds_total{replica="http://kong:8001"} 2`,
		`kongsync_pushes_deferred_total{reason="load_budget",replica="http://kong:8001"} 2`,
		`kongsync_pushes_deferred_total{reason="proxy_sync_interval",replica="http://kong:8001"} 1`,
		`kongsync_replica_reachable{replica="http://kong:8001"} 1`,
		`kongsync_change_to_post_seconds_bucket{le="0.11"} 0`, `kongsync_change_to_post_seconds_bucket{le="0.12"} 1`, `kongsync_replica_in_sync{replica="http://kong:8001"} 0`} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestProfilingOnlyWhenEnabled(t *testing.T) {
	p := New()
	if code, _ := get(MetricsHandler(p.Registry), "/debug/pprof/heap"); code != http.StatusNotFound {
		t.Errorf("pprof served without --profiling: %d", code)
	}
	h := WithProfiling(MetricsHandler(p.Registry))
	if code, body := get(h, "/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("heap profile = %d %.80q", code, body)
	}
	if code, body := get(h, "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index = %d %.80q", code, body)
	}
	if code, body := get(h, "/metrics"); code != http.StatusOK || !strings.Contains(body, "kongsync_") {
		t.Errorf("/metrics behind the profiling mux = %d", code)
	}
}
