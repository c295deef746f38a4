//go:build integration

package integration

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/metrics"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// The soak's checks fail when they should: a replica whose accepted configs go back in build
// generation, and a problem without its Event.
func TestSoakChecksCatchViolations(t *testing.T) {
	d := newDouble(t)
	s := &soak{doubles: []*kongdouble.Server{d}, postsSeen: []int{0}, lastVersion: map[string]uint64{}, counts: map[string]int{}}
	s.procs = newProcs(s)
	p := &soakProc{id: "x1", obs: &soakObserver{}}
	s.procs.all[p.id] = p
	configs := []string{`{"_format_version":"3.0","services":[{"name":"new","host":"new.example.com"}]}`,
		`{"_format_version":"3.0","services":[{"name":"old","host":"old.example.com"}]}`}
	for i, v := range []uint64{7, 5} { // "new" built at store version 7, "old" at 5
		sum := md5.Sum([]byte(configs[i]))
		p.obs.observe(kongsync.Event{Type: kongsync.EventBuild, Hash: hex.EncodeToString(sum[:]), Version: v})
	}
	post := func(config string) {
		body, _ := json.Marshal(map[string]string{"config": config})
		req, _ := http.NewRequest(http.MethodPost, d.URL()+"/config", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(identityHeader, "x1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	post(configs[0])
	if bad := s.pushOrder(); len(bad) != 0 {
		t.Fatalf("first push flagged: %v", bad)
	}
	post(configs[1]) // the older config accepted after the newer one
	if bad := s.pushOrder(); len(bad) != 1 {
		t.Fatalf("a push of an older config was not caught: %v", bad)
	}

	p0 := translator.Problem{Field: "spec.tls[0].secretName", Reason: "Secret a/x not found"}
	ev := func(msg string, count int32) *corev1.Event {
		return &corev1.Event{Reason: metrics.ReasonTranslationFailed, Message: msg, Count: count}
	}
	for _, c := range []struct {
		evs  []*corev1.Event
		want string
	}{
		{nil, "missing"},
		{[]*corev1.Event{ev("spec.tls[0].secretName: Secret a/x not found", 1)}, "exact"},
		{[]*corev1.Event{ev("spec.rules[0].host: other", 3)}, "missing"},
		{[]*corev1.Event{ev("(combined from similar events): spec.rules[0].host: other", 12)}, "lenient"},
		{[]*corev1.Event{ev("spec.rules[0].host: other", 25)}, "lenient"},
	} {
		if got := problemEventState(c.evs, p0); got != c.want {
			t.Errorf("events %v: %s, want %s", c.evs, got, c.want)
		}
	}
}

// The router flavor comes from the seed's parity (no draw), and the route-kind check tells
// expression routes from traditional ones wherever routes nest.
func TestSoakFlavorFromSeed(t *testing.T) {
	for seed, want := range map[uint64]translator.RouterFlavor{11: translator.RouterExpressions, 12: translator.RouterTraditionalCompatible,
		6474507371077955689: translator.RouterExpressions, 4357587547364696716: translator.RouterTraditionalCompatible} {
		if got := soakFlavor(seed); got != want {
			t.Errorf("seed %d: %s, want %s", seed, got, want)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(`{"services":[{"name":"s","routes":[{"name":"a","expression":"http.path == \"/\"","priority":1},{"name":"b","paths":["/"]}]}],
		"routes":[{"name":"c","hosts":["x"]}],"plugins":[{"name":"p","config":{"routes":[{"expression":"not a route"}]}}]}`), &doc); err != nil {
		t.Fatal(err)
	}
	if expr, trad := routeKinds(doc); expr != 1 || trad != 2 {
		t.Errorf("routeKinds: %d expression routes and %d traditional, want 1 and 2", expr, trad)
	}
}
