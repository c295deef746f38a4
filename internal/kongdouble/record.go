package kongdouble

import (
	"net/http"
	"net/url"
	"time"
)

// Request is one request the double answered.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	// Status is the status code the double answered with; 0 when it did not answer (the
	// client gave up during a delay, or the double stopped).
	Status int
	// Start and End bracket the request's handling.
	Start, End time.Time
	// Received is when the whole body had arrived: End minus Received is the double's own
	// processing (parsing and validating a config), which a benchmark of the sender excludes.
	Received time.Time
}

// IsPost reports whether this is a POST /config.
func (r Request) IsPost() bool { return r.Method == http.MethodPost && r.Path == "/config" }

// Requests returns every request answered so far, in order of completion.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Posts returns the POST /config requests answered so far.
func (s *Server) Posts() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.reqs {
		if r.IsPost() {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests forgets the recorded requests (not the config).
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.broadcast()
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	s.broadcast()
}
