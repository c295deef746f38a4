package metrics

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/fallback"
)

// /debug/config/diff-report: nothing before two different pushes, then the last push against the
// one before (another replica taking the same config changes nothing); secrets compared
// redacted unless sensitive (a changed key is said to differ, its values never shown); ?hash=
// other than the last is 404.
func TestDiffReport(t *testing.T) {
	d := &kongsync.Dumps{}
	none := func() fallback.Plan { return fallback.Plan{} }
	redacted, sensitive := ConfigDumpHandler(d, none, false), ConfigDumpHandler(d, none, true)
	first := dumpDoc("OLD-KEY")
	first.Services = append(first.Services, &document.Service{Service: kong.Service{Name: kong.String("gone"), Host: kong.String("x")}})
	second := dumpDoc("NEW-KEY")
	second.Services[0].Host = kong.String("web2")
	second.Consumers = []*document.Consumer{{Consumer: kong.Consumer{Username: kong.String("alice")}}}
	p1, _ := kongsync.NewPayload(first)
	p2, _ := kongsync.NewPayload(second)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	accepted := kongsync.Outcome{Result: kongsync.ResultAccepted, Status: 201}

	wantNone := diffResponse{Message: "no diffs available", Diffs: []entityDiff{}, Available: []diffIndex{}}
	checkReport(t, redacted, "/diff-report", http.StatusOK, wantNone)
	d.Record("http://kong:8001", p1, accepted, at)
	checkReport(t, redacted, "/diff-report", http.StatusOK, wantNone)
	d.Record("http://kong:8001", p2, accepted, at)
	d.Record("http://kong:8002", p2, accepted, at) // the same config again: still p1 → p2

	index := []diffIndex{{Hash: p2.Hash(), Timestamp: "2026-01-02T03:04:05Z"}}
	base := []entityDiff{
		{Entity: kongEntity{Kind: "consumer", Name: "alice"}, Action: "create"},
		{Entity: kongEntity{Kind: "service", Name: "svc"}, Action: "update", Diff: `host: "web" -> "web2"`},
		{Entity: kongEntity{Kind: "service", Name: "gone"}, Action: "delete"},
	}
	keyChange := func(diff string) []entityDiff {
		return []entityDiff{base[0], {Entity: kongEntity{Kind: "certificate", Name: "c1"}, Action: "update", Diff: diff}, base[1], base[2]}
	}
	checkReport(t, redacted, "/diff-report", http.StatusOK,
		diffResponse{Hash: p2.Hash(), Timestamp: index[0].Timestamp, Diffs: keyChange("key: <redacted, differs>"), Available: index})
	withKey := keyChange(`key: "OLD-KEY" -> "NEW-KEY"`)
	got := report(t, sensitive, "/diff-report?hash="+p2.Hash(), http.StatusOK)
	if !sameEntities(got.Diffs, withKey) {
		t.Errorf("sensitive diffs = %+v\nwant (any order) %+v", got.Diffs, withKey)
	}
	checkReport(t, redacted, "/diff-report?hash=nope", http.StatusNotFound,
		diffResponse{Message: `diff with hash "nope" not found`, Hash: "nope", Available: index})
}

func report(t *testing.T, h http.Handler, path string, code int) diffResponse {
	t.Helper()
	gotCode, body := get(h, path)
	var got diffResponse
	if err := json.Unmarshal([]byte(body), &got); err != nil || gotCode != code {
		t.Fatalf("%s = %d %s (%v), want %d", path, gotCode, body, err, code)
	}
	return got
}

func checkReport(t *testing.T, h http.Handler, path string, code int, want diffResponse) {
	t.Helper()
	if got := report(t, h, path, code); !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v\nwant %+v", path, got, want)
	}
}

func sameEntities(a, b []entityDiff) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range b {
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}
