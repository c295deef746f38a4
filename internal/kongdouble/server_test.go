package kongdouble

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

const minimal = `{"_format_version":"3.0","services":[{"name":"s","host":"example.com","tags":["k8s-name:s"]}]}`

// GET / describes a DB-less node (kong/api/routes/kong.lua).
func TestInfo(t *testing.T) {
	s := New(Options{Version: "3.9.1"})
	defer s.Close()
	code, body, _ := do(t, s, http.MethodGet, "/", "", "")
	if code != http.StatusOK || body["version"] != "3.9.1" {
		t.Fatalf("%d %v", code, body)
	}
	if db := body["configuration"].(map[string]any)["database"]; db != "off" {
		t.Errorf("configuration.database = %v, want off", db)
	}
	avail := body["plugins"].(map[string]any)["available_on_server"].(map[string]any)
	if _, ok := avail["key-auth"]; !ok {
		t.Errorf("key-auth not among available plugins: %v", avail)
	}
}

// GET /status reports the empty hash until a config with entities is loaded, the md5 of the
// config string after, and the empty hash again after a restart (kong/api/routes/health.lua);
// a config without entities also reports the empty hash (kong/db/declarative/import.lua).
func TestStatusHashLifecycle(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	status := func() map[string]any {
		_, body, _ := do(t, s, http.MethodGet, "/status", "", "")
		return body
	}
	if st := status(); st["configuration_hash"] != EmptyHash {
		t.Fatalf("fresh: %v", st)
	} else if _, ok := st["database"]; ok {
		t.Error("DB-less /status must not have a database key")
	}
	if code, body := postConfig(t, s, "?check_hash=1", minimal); code != http.StatusCreated {
		t.Fatalf("%d %v", code, body)
	}
	if got := status()["configuration_hash"]; got != md5hex([]byte(minimal)) {
		t.Fatalf("after load: %v", got)
	}
	url := s.URL()
	s.Restart()
	if s.URL() != url {
		t.Fatalf("restart moved the port: %s → %s", url, s.URL())
	}
	if got := status()["configuration_hash"]; got != EmptyHash {
		t.Fatalf("after restart: %v", got)
	}
	if code, _ := postConfig(t, s, "?check_hash=1", `{"_format_version":"3.0"}`); code != http.StatusCreated {
		t.Fatalf("empty config: %d", code)
	}
	if got := status()["configuration_hash"]; got != EmptyHash {
		t.Fatalf("after loading an empty config: %v, want the empty hash", got)
	}
}

func TestFaults(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.SetNextResponse(http.StatusTooManyRequests, "3")
	code, body, hdr := do(t, s, http.MethodPost, "/config", "application/json", minimal)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "3" || body["message"] != "Currently loading previous configuration" {
		t.Fatalf("429 fault: %d %v %v", code, hdr, body)
	}
	s.AddFault(Fault{Status: http.StatusInternalServerError, Times: 2})
	for i := 0; i < 2; i++ {
		if code, _, _ := do(t, s, http.MethodPost, "/config", "application/json", minimal); code != http.StatusInternalServerError {
			t.Fatalf("500 fault %d: %d", i, code)
		}
	}
	if code, _, _ := do(t, s, http.MethodPost, "/config", "application/json", minimal); code != http.StatusCreated {
		t.Fatalf("after faults ran out: %d", code)
	}
	if n := len(s.Posts()); n != 4 {
		t.Errorf("%d posts recorded, want 4", n)
	}
	for _, p := range s.Posts() {
		if p.Received.Before(p.Start) || p.End.Before(p.Received) {
			t.Errorf("times out of order: start %v received %v end %v", p.Start, p.Received, p.End)
		}
	}
}

// A delay longer than the client's timeout is a Kong timeout; the double gives up the request
// when the client does.
func TestDelayTimesOutClient(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.SetDelay(time.Hour)
	client := &http.Client{Timeout: 100 * time.Millisecond}
	_, err := client.Post(s.URL()+"/config", "application/json", nil)
	if err == nil {
		t.Fatal("want a timeout")
	}
	s.ClearFaults()
	resp, err := client.Get(s.URL() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// Stop makes the port refuse connections while keeping the config; Start reopens the same port.
func TestUnreachable(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	if code, _ := postConfig(t, s, "", minimal); code != http.StatusCreated {
		t.Fatal(code)
	}
	s.Stop()
	_, err := http.Get(s.URL() + "/status")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("want connection refused while stopped, got %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	_, body, _ := do(t, s, http.MethodGet, "/status", "", "")
	if body["configuration_hash"] != md5hex([]byte(minimal)) {
		t.Errorf("config lost across Stop/Start: %v", body)
	}
}

func TestToken(t *testing.T) {
	s := New(Options{Token: "s3cret"})
	defer s.Close()
	if code, _, _ := do(t, s, http.MethodGet, "/status", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("without token: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/status", nil)
	req.Header.Set("Kong-Admin-Token", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("with token: %v %v", resp, err)
	}
	resp.Body.Close()
	if got := s.Requests()[1].Header.Get("Kong-Admin-Token"); got != "s3cret" {
		t.Errorf("recorded header %q", got)
	}
}

// WaitPosts and WaitHash return as soon as the condition holds, without polling.
func TestWaiters(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.WaitHash(ctx, md5hex([]byte(minimal))) }()
	if code, _ := postConfig(t, s, "", minimal); code != http.StatusCreated {
		t.Fatal(code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.WaitPosts(ctx, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if err := s.WaitPosts(short, 2); err == nil {
		t.Fatal("WaitPosts(2) should time out after one post")
	}
}

func TestCheckRegex(t *testing.T) {
	for re, ok := range map[string]bool{
		`/api/v\d+/`:     true,
		`/foo(?=bar)`:    true, // PCRE lookahead
		`/(a)\1`:         true, // backreference
		`/a++b`:          true, // possessive quantifier
		`/(?<name>x)`:    true,
		`/api/(v1|v2`:    false,
		`/[a-`:           false,
		`/*a`:            true, // "/*" repeats the slash
		`*a`:             false,
		`/(?=foo`:        false,
		`/x{2,1}`:        false,
		`/headers/[z-a]`: false,
	} {
		if err := checkRegex(re); (err == nil) != ok {
			t.Errorf("checkRegex(%q) = %v, want ok=%v", re, err, ok)
		}
	}
}

// A request abandoned during a delay is recorded without a status.
func TestAbandonedRequestRecordedWithoutStatus(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.SetDelay(time.Hour)
	client := &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := client.Post(s.URL()+"/config", "application/json", nil); err == nil {
		t.Fatal("want a timeout")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.WaitPosts(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if st := s.Posts()[0].Status; st != 0 {
		t.Errorf("status %d, want 0", st)
	}
}

// While a config is loading, Kong answers another POST /config with 429 and Retry-After
// (kong/api/routes/config.lua: "busy"/"locked").
func TestBusyWhileLoading(t *testing.T) {
	s := New(Options{LoadTime: 400 * time.Millisecond})
	defer s.Close()
	first := make(chan int, 1)
	go func() {
		code, _ := postConfig(t, s, "", minimal)
		first <- code
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.WaitFor(ctx, s.Loading); err != nil {
		t.Fatal(err)
	}
	b := mustJSON(t, map[string]string{"config": `{"_format_version":"3.0"}`})
	code, body, hdr := do(t, s, http.MethodPost, "/config", "application/json", b)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" || body["message"] != "Currently loading previous configuration" {
		t.Fatalf("concurrent post: %d %v %v", code, hdr, body)
	}
	if code := <-first; code != http.StatusCreated || s.Hash() != md5hex([]byte(minimal)) {
		t.Fatalf("first post: %d, hash %s", code, s.Hash())
	}
}

// A body over client_max_body_size gets nginx's HTML 413, announced (Content-Length) or not
// (chunked), and Kong never sees it: the config held stays; the default limit is Kong's 10m.
func TestBodyOverNginxLimit(t *testing.T) {
	s := New(Options{MaxBodyBytes: 200})
	defer s.Close()
	if code, _ := postConfig(t, s, "", minimal); code != http.StatusCreated {
		t.Fatalf("small config: %d", code)
	}
	held := s.Config()
	big := `{"config":"` + strings.Repeat(" ", 300) + `"}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(big)
		if chunked {
			body = io.MultiReader(body) // hides the length: the client sends it chunked
		}
		resp, err := http.Post(s.URL()+"/config", "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(raw), "413 Request Entity Too Large") {
			t.Errorf("chunked=%v: HTTP %d %s %q", chunked, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		}
	}
	if s.Config() != held {
		t.Error("the held config changed")
	}
	d := New(Options{})
	defer d.Close()
	over := `{"config":"` + strings.Repeat(" ", 10<<20) + `"}`
	resp, err := http.Post(d.URL()+"/config", "application/json", strings.NewReader(over))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 10m with the default limit: HTTP %d", resp.StatusCode)
	}
}

// A load takes LoadTime plus LoadTimePerMB per MiB of config, and every answer carries Kong's
// X-Kong-Admin-Latency (whole milliseconds of the double's handling) unless NoLatencyHeader.
func TestLoadTimePerMBAndLatencyHeader(t *testing.T) {
	s := New(Options{LoadTime: 50 * time.Millisecond, LoadTimePerMB: 400 * time.Millisecond})
	defer s.Close()
	// A quarter MiB of config: 50 ms + 100 ms.
	pad := strings.Repeat("x", 1<<18)
	cfg := `{"_format_version":"3.0","_comment":"` + pad + `","services":[{"name":"s","host":"example.com"}]}`
	b := mustJSON(t, map[string]string{"config": cfg})
	start := time.Now()
	code, _, hdr := do(t, s, http.MethodPost, "/config", "application/json", b)
	took := time.Since(start)
	if code != http.StatusCreated {
		t.Fatalf("HTTP %d", code)
	}
	if took < 150*time.Millisecond {
		t.Errorf("load of %d bytes took %v, want at least 150 ms", len(cfg), took)
	}
	lat, err := time.ParseDuration(hdr.Get("X-Kong-Admin-Latency") + "ms")
	if err != nil || lat < 150*time.Millisecond || lat > took {
		t.Errorf("X-Kong-Admin-Latency %q, want 150 ms ≤ it ≤ the round trip %v", hdr.Get("X-Kong-Admin-Latency"), took)
	}
	s.SetLoadTimePerMB(0)
	s.SetLoadTime(0)
	if _, _, hdr := do(t, s, http.MethodGet, "/status", "", ""); hdr.Get("X-Kong-Admin-Latency") == "" {
		t.Error("GET /status without X-Kong-Admin-Latency")
	}
	quiet := New(Options{NoLatencyHeader: true})
	defer quiet.Close()
	if _, _, hdr := do(t, quiet, http.MethodPost, "/config", "application/json", b); hdr.Get("X-Kong-Admin-Latency") != "" {
		t.Error("NoLatencyHeader: the header is there")
	}
}
