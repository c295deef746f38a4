package kongdouble

import (
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// loaded is the configuration the double holds.
type loaded struct {
	raw      string
	sum      string // md5 of raw, or EmptyHash for a config without entities
	doc      map[string]any
	entities map[string]map[string]any
}

func (l *loaded) hash() string {
	if l == nil {
		return EmptyHash
	}
	return l.sum
}

// serve answers a request and records it. The answer is buffered and sent only after the
// request is recorded, so a client that has its answer can rely on Requests() listing it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{header: w.Header(), status: http.StatusOK}
	body, ok := s.readBody(rec, r)
	received := time.Now()
	if ok {
		s.route(rec, r, body)
	}
	if !s.opts.NoLatencyHeader {
		// Kong's own figure for the request (kong/init.lua admin_header_filter), milliseconds.
		rec.header.Set("X-Kong-Admin-Latency", strconv.FormatInt(time.Since(start).Milliseconds(), 10))
	}
	s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(),
		Body: body, Status: rec.status, Start: start, Received: received, End: time.Now()})
	if rec.status == 0 {
		panic(http.ErrAbortHandler) // no answer: drop the connection, as a dying Kong would
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// DefaultMaxBodyBytes is Kong's default nginx_admin_client_max_body_size (and
// client_body_buffer_size), 10m: a POST /config body above it never reaches Kong.
const DefaultMaxBodyBytes = 10 << 20

// nginx413 is the page nginx (OpenResty) answers with when a body exceeds client_max_body_size:
// Kong's admin server block has no error_page of its own.
const nginx413 = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n" +
	"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>openresty</center>\r\n</body>\r\n</html>\r\n"

// readBody reads the request body as nginx would: a body over the limit (by Content-Length,
// or while reading a chunked one) is answered with nginx's 413 page and not handled further.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := s.opts.MaxBodyBytes
	if limit == 0 {
		limit = DefaultMaxBodyBytes
	}
	if limit < 0 {
		limit = 256 << 20
	}
	if r.ContentLength > limit {
		writeNginx413(w)
		return nil, false
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if int64(len(body)) > limit {
		writeNginx413(w)
		return nil, false
	}
	return body, true
}

func writeNginx413(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = io.WriteString(w, nginx413)
}

// recorder buffers a response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte) {
	if s.opts.Token != "" && r.Header.Get("Kong-Admin-Token") != s.opts.Token {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": kongMessage(http.StatusUnauthorized)})
		return
	}
	if f := s.takeFault(r.Method, r.URL.Path); f != nil {
		if !s.delay(r, f.Delay) {
			w.WriteHeader(0) // client gave up or the double stopped: nothing to answer
			return
		}
		if f.Status != 0 {
			writeFault(w, f)
			return
		}
	}
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.info())
	case r.URL.Path == "/status" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.status())
	case r.URL.Path == "/config" && r.Method == http.MethodPost:
		s.postConfig(w, r, body)
	case r.URL.Path == "/config" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"config": s.Config()})
	case strings.HasPrefix(r.URL.Path, "/schemas/") && r.Method == http.MethodGet && !strings.Contains(r.URL.Path[len("/schemas/"):], "/"):
		s.getSchema(w, r.URL.Path[len("/schemas/"):])
	case r.URL.Path == "/config" || r.URL.Path == "/status" || r.URL.Path == "/":
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"message": "Method not allowed"})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not found"})
	}
}

// delay waits d, or until the client disconnects or the double stops; false if it did not last.
func (s *Server) delay(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-down:
		return false
	}
}

func writeFault(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Status == http.StatusNotModified {
		w.WriteHeader(f.Status)
		return
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, f.Body)
		return
	}
	writeJSON(w, f.Status, map[string]any{"message": kongMessage(f.Status)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// info is GET /: the node's version, plugins and configuration (database "off").
func (s *Server) info() map[string]any {
	version, plugins := s.version()
	avail := map[string]any{}
	for _, p := range plugins {
		avail[p] = map[string]any{"version": version, "priority": 1000}
	}
	host, _ := os.Hostname()
	proxy, stream := s.listeners()
	return map[string]any{
		"version":     version,
		"edition":     "community",
		"tagline":     "Welcome to kong",
		"node_id":     s.nodeID,
		"hostname":    host,
		"lua_version": "LuaJIT 2.1.0-20231117",
		"plugins": map[string]any{
			"available_on_server": avail,
			"enabled_in_cluster":  []string{},
		},
		"configuration": map[string]any{
			"database":         "off",
			"router_flavor":    s.RouterFlavor(),
			"role":             "traditional",
			"proxy_listeners":  proxy,
			"stream_listeners": stream,
		},
		"pids":   map[string]any{"master": os.Getpid(), "workers": []int{os.Getpid()}},
		"timers": map[string]any{"running": 0, "pending": 1},
	}
}

// status is GET /status in DB-less mode: no "database" key, a configuration_hash.
func (s *Server) status() map[string]any {
	s.mu.Lock()
	total := len(s.reqs) + 1
	hash := s.cur.hash()
	s.mu.Unlock()
	return map[string]any{
		"memory": map[string]any{
			"lua_shared_dicts": map[string]any{},
			"workers_lua_vms":  []any{},
		},
		"server": map[string]any{
			"connections_accepted": total, "connections_active": 1, "connections_handled": total,
			"connections_reading": 0, "connections_waiting": 0, "connections_writing": 1,
			"total_requests": total,
		},
		"configuration_hash": hash,
	}
}

func md5hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return strings.Join([]string{h[0:8], h[8:12], h[12:16], h[16:20], h[20:32]}, "-")
}

// nameUUID returns a UUID derived from a name (version 5 layout over md5, good enough to be
// stable for the same target in the same upstream).
func nameUUID(name string) string {
	sum := md5.Sum([]byte("kongdouble:" + name))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	h := hex.EncodeToString(sum[:])
	return strings.Join([]string{h[0:8], h[8:12], h[12:16], h[16:20], h[20:32]}, "-")
}
