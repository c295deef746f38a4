package sync

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

func TestKongListeners(t *testing.T) {
	for _, tc := range []struct {
		name          string
		proxy, stream string
		want          []KongListener
	}{
		{"Kong's defaults (stream_listen off: an empty object)",
			`[{"ip":"0.0.0.0","port":8000,"ssl":false},{"ip":"0.0.0.0","port":8443,"ssl":true,"http2":true}]`, `{}`,
			[]KongListener{{Port: 8000}, {Port: 8443, SSL: true}}},
		{"stream listeners, sorted by port",
			`{}`, `[{"port":9999,"udp":true},{"port":9443,"ssl":true},{"port":9000}]`,
			[]KongListener{{Port: 9000, Stream: true}, {Port: 9443, Stream: true, SSL: true}, {Port: 9999, Stream: true, UDP: true}}},
		{"a host name listen keeps its port as a string; duplicates once; bad ports skipped",
			`[{"port":"8000"},{"port":8000},{"port":"x"},{"port":0},{"port":70000},{"port":null}]`, ``,
			[]KongListener{{Port: 8000}}},
		{"udp on a proxy listener means nothing", `[{"port":8000,"udp":true}]`, `[]`, []KongListener{{Port: 8000}}},
		{"garbage", `"off"`, `42`, nil},
	} {
		if got := kongListeners(json.RawMessage(tc.proxy), json.RawMessage(tc.stream)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestCommonListeners(t *testing.T) {
	a := []KongListener{{Port: 8000}, {Port: 8443, SSL: true}, {Port: 9000, Stream: true}}
	b := []KongListener{{Port: 8000}, {Port: 9000, Stream: true}, {Port: 9001, Stream: true}}
	if got := commonListeners([][]KongListener{a, b}); !reflect.DeepEqual(got, []KongListener{{Port: 8000}, {Port: 9000, Stream: true}}) {
		t.Errorf("common = %+v", got)
	}
	if got := commonListeners(nil); got != nil {
		t.Errorf("no replica: %+v", got)
	}
	if got := commonListeners([][]KongListener{a}); !reflect.DeepEqual(got, a) || &got[0] == &a[0] {
		t.Errorf("one replica: %+v (must be a copy)", got)
	}
}

// GET / of the Kong double reports its listeners as Kong does, and Root reads them.
func TestRootReadsListeners(t *testing.T) {
	k := kongdouble.New(kongdouble.Options{})
	defer k.Close()
	r, err := NewReplica(k.URL(), ReplicaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root, err := r.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []KongListener{{Port: 8000}, {Port: 8443, SSL: true}}; !reflect.DeepEqual(root.Listeners, want) {
		t.Errorf("default listeners %+v, want %+v", root.Listeners, want)
	}
	k.SetListens([]kongdouble.Listen{{Port: 8000}, {Port: 9000, Stream: true}, {Port: 9443, Stream: true, SSL: true}})
	if root, err = r.Root(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []KongListener{{Port: 8000}, {Port: 9000, Stream: true}, {Port: 9443, Stream: true, SSL: true}}
	if !reflect.DeepEqual(root.Listeners, want) {
		t.Errorf("listeners %+v, want %+v", root.Listeners, want)
	}
}

// The loop exposes the listeners its replicas share once every replica answered GET /, and
// chooses again when one reports others.
func TestLoopKongListeners(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2})
	e.upsert("a", nil)
	e.converged(wait)
	if ls, ok := e.loop.KongListeners(); !ok || !reflect.DeepEqual(ls, []KongListener{{Port: 8000}, {Port: 8443, SSL: true}}) {
		t.Fatalf("KongListeners = %+v, %v", ls, ok)
	}
	e.kongs[1].SetListens([]kongdouble.Listen{{Port: 8000}})
	e.kongs[1].Restart() // a restart is noticed and GET / read again
	e.wait("the listeners both replicas share", wait, func() bool {
		ls, _ := e.loop.KongListeners()
		return reflect.DeepEqual(ls, []KongListener{{Port: 8000}})
	})
}
