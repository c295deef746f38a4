package metrics

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// rawControls are the characters that must never reach an Event message or a log line raw.
var rawControls = []string{"\x1b", "\r", "\b", "\x00", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
	"\u2066", "\u2067", "\u2068", "\u2069"}

func rawControl(s string) string {
	for _, c := range rawControls {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

// Event messages are escaped where every object's Event passes (emit): a problem's field and
// reason, Kong's answer about a rejected entity and a replica's failure, whatever they quote
// (ESC sequences, carriage returns, bidi overrides, newlines). Log lines are escaped by the log
// sink (cmd/kongsync's newLogger, TestLogLinesEscaped).
func TestEventMessagesEscaped(t *testing.T) {
	r, rec, ref := serviceReporter(t)
	r.SetPod("kong", "kong-0")
	hostile := "x\x1b[2J\r\b\x00\u202eevil\u2066\nWarning forged"
	r.TranslationProblems([]translator.Problem{
		{Object: ref, Field: "metadata.annotations[konghq.com/" + hostile + "]", Reason: "bad " + hostile},
	})
	r.KongRejected([]kongsync.Rejection{{Object: ref, Replica: "http://kong:8001",
		Entity: kongsync.EntityError{Type: "route", Name: "a.s" + hostile, Errors: []kongsync.FieldError{{Type: "field", Field: "paths", Message: hostile}}}}})
	r.ReplicaFailed("http://kong:8001", kongsync.ResultFailed, errors.New(hostile))
	close(rec.Events)
	n := 0
	for e := range rec.Events {
		n++
		if c := rawControl(e); c != "" || strings.Contains(e, "\n") {
			t.Errorf("event holds %q raw: %q", c, e)
		}
		if !strings.Contains(e, `\x1b[2J\r\b\x00\u202eevil\u2066\nWarning forged`) {
			t.Errorf("event lost the escaped text: %q", e)
		}
	}
	if n != 3 {
		t.Errorf("%d events, want 3", n)
	}
}

// serviceReporter is a Reporter over a store holding Service a/s (its ref), recording Events.
func serviceReporter(t *testing.T) (*Reporter, *record.FakeRecorder, store.Ref) {
	t.Helper()
	st := store.New()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s", UID: "uid-1"}}
	if _, err := st.Upsert(svc); err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(10)
	return NewReporter(rec, st, logr.Discard()), rec, store.Ref{Kind: store.KindService, Namespace: "a", Name: "s"}
}
