package sync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// AdminTokenHeader is the header that carries the Kong admin token (KIC's --kong-admin-token).
const AdminTokenHeader = "Kong-Admin-Token"

// Default timings; see docs/sync.md for why.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultProbeTimeout  = 2 * time.Second
	DefaultProbeInterval = time.Second
	DefaultBackoffBase   = 200 * time.Millisecond
	DefaultBackoffMax    = 2 * time.Second
	DefaultRetryAfterMax = time.Minute
)

// ReplicaOptions are the settings shared by every replica's client.
type ReplicaOptions struct {
	// Client sends the requests; build one with NewHTTPClient for TLS settings. Nil means a
	// plain client. Its Timeout should be zero: per-request timeouts come from Timeout below.
	Client *http.Client
	// Token, if set, is sent as the Kong-Admin-Token header. It is never logged.
	Token string
	// Headers are added to every request (KIC's --kong-admin-header), replacing any header of
	// the same name: a Kong-Admin-Token here wins over Token, as in KIC. Never logged.
	Headers http.Header
	// Timeout bounds one POST /config (default 30 s: Kong may take seconds to load a big config).
	Timeout time.Duration
	// ProbeTimeout bounds one GET /status (default 2 s).
	ProbeTimeout time.Duration
	// ProbeInterval is how often an idle replica's GET /status is polled to notice a restarted
	// (empty) Kong (default 1 s).
	ProbeInterval time.Duration
	// BackoffBase and BackoffMax shape the exponential backoff with jitter after server and
	// network errors (defaults 200 ms and 2 s).
	BackoffBase, BackoffMax time.Duration
	// RetryAfterMax caps a 429's Retry-After (default 1 min) so a bogus header cannot stall sync.
	RetryAfterMax time.Duration
}

func (o ReplicaOptions) withDefaults() ReplicaOptions {
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Timeout, DefaultTimeout)
	def(&o.ProbeTimeout, DefaultProbeTimeout)
	def(&o.ProbeInterval, DefaultProbeInterval)
	def(&o.BackoffBase, DefaultBackoffBase)
	def(&o.BackoffMax, DefaultBackoffMax)
	def(&o.RetryAfterMax, DefaultRetryAfterMax)
	return o
}

// Replica talks to one Kong admin API. Its methods make exactly one request each; retries,
// backoff and state live in the loop's per-replica worker.
type Replica struct {
	base *url.URL
	name string // redacted URL for logs, metrics and reports
	opts ReplicaOptions
}

// NewReplica returns a client for the Kong admin API at adminURL.
func NewReplica(adminURL string, opts ReplicaOptions) (*Replica, error) {
	u, err := url.Parse(strings.TrimRight(adminURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("kong admin URL %q: %w", adminURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("kong admin URL %q: want http(s)://host[:port]", adminURL)
	}
	return &Replica{base: u, name: u.Redacted(), opts: opts.withDefaults()}, nil
}

// URL is the replica's admin URL (with any password redacted), as used in logs and reports.
func (r *Replica) URL() string { return r.name }

// Outcome is the result of one POST /config.
type Outcome struct {
	Result Result
	// Status is the HTTP status, 0 for network errors.
	Status int
	// RetryAfter is a 429's Retry-After, capped; zero when absent.
	RetryAfter time.Duration
	// Entities are the flattened errors of a 400.
	Entities []EntityError
	// Message is Kong's error message, truncated; never the config.
	Message string
	// Err describes the failure (nil on 201 and 304).
	Err error
	// Duration is the request's round trip.
	Duration time.Duration
	// Cost is what the POST cost Kong, as pacing counts it: Kong's own figure
	// (X-Kong-Admin-Latency) when it reports one (CostFromKong), else Duration.
	Cost         time.Duration
	CostFromKong bool
	// Bytes is the size of the request body (0 when the request could not be built).
	Bytes int64
	// Body is Kong's answer to a failed push, as read (nil on success). It can echo entities
	// with their private keys: it is never logged, only kept for --dump-config (Dumps).
	Body []byte
}

// Push posts a payload to /config?check_hash=1&flatten_errors=1.
func (r *Replica) Push(ctx context.Context, p *Payload) Outcome {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	start := time.Now()
	rd, size := p.Body()
	req, err := r.request(ctx, http.MethodPost, "/config?check_hash=1&flatten_errors=1", rd)
	if err != nil {
		return Outcome{Result: ResultFailed, Err: err}
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return Outcome{Result: ResultNetworkError, Err: scrub(err), Duration: time.Since(start), Bytes: size}
	}
	defer resp.Body.Close()
	var body []byte
	if resp.StatusCode >= 300 {
		body, err = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	} else {
		// A 201 lists every loaded entity: drain it for connection reuse, never keep it.
		_, err = io.Copy(io.Discard, resp.Body)
	}
	out := Outcome{Status: resp.StatusCode, Duration: time.Since(start), Bytes: size}
	out.Cost, out.CostFromKong = loadCost(resp.Header, out.Duration)
	if err != nil {
		out.Result, out.Err = ResultNetworkError, fmt.Errorf("read /config response: %w", scrub(err))
		return out
	}
	r.classify(&out, resp, body, size)
	out.Body = body
	return out
}

func (r *Replica) classify(out *Outcome, resp *http.Response, body []byte, size int64) {
	switch code := resp.StatusCode; {
	case code == http.StatusCreated || code == http.StatusOK:
		out.Result = ResultAccepted
		return
	case code == http.StatusNotModified:
		out.Result = ResultUnchanged
		return
	case code == http.StatusBadRequest:
		out.Result = ResultRejected
		ents, msg, err := parseConfigError(body)
		out.Entities, out.Message = ents, truncate(msg)
		if err != nil {
			out.Message = truncate(messageOf(body))
		}
	case code == http.StatusRequestEntityTooLarge:
		out.Result = ResultTooLarge
		out.Message = tooLargeMessage(body, size)
	case code == http.StatusTooManyRequests:
		out.Result = ResultBusy
		out.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), r.opts.RetryAfterMax)
		out.Message = truncate(messageOf(body))
	case code >= 500:
		out.Result = ResultServerError
		out.Message = truncate(messageOf(body))
	default:
		out.Result = ResultFailed
		out.Message = truncate(messageOf(body))
	}
	out.Err = fmt.Errorf("POST /config: HTTP %d: %s", resp.StatusCode, out.Message)
}

// Status returns the configuration_hash from GET /status.
func (r *Replica) Status(ctx context.Context) (string, error) {
	body, err := r.get(ctx, "/status", r.opts.ProbeTimeout, 1<<20)
	if err != nil {
		return "", err
	}
	var st struct {
		Hash string `json:"configuration_hash"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return "", fmt.Errorf("decode /status: %w", err)
	}
	if st.Hash == "" {
		return "", errors.New("GET /status: no configuration_hash (is Kong running DB-less?)")
	}
	return st.Hash, nil
}

// UnusableVersionError is a Kong that answers GET / with a version kongsync cannot translate
// for (older than KIC v3 supports, or unreadable): asking again will not help until Kong changes.
type UnusableVersionError struct{ err error }

func (e UnusableVersionError) Error() string { return e.err.Error() }
func (e UnusableVersionError) Unwrap() error { return e.err }

// LiveConfig returns the configuration the replica holds: the "config" string of DB-less
// Kong's GET /config (YAML from a real Kong, which exports it; "" from a Kong holding none).
func (r *Replica) LiveConfig(ctx context.Context) (string, error) {
	body, err := r.get(ctx, "/config", r.opts.Timeout, -1)
	if err != nil {
		return "", err
	}
	var cfg struct {
		Config *string `json:"config"`
	}
	if err := json.Unmarshal(body, &cfg); err != nil || cfg.Config == nil {
		return "", fmt.Errorf("GET /config: no \"config\" string in the answer (is Kong running DB-less?)")
	}
	return *cfg.Config, nil
}

// get is a GET of path within timeout, returning the body of a 200 answer (at most limit bytes
// when limit ≥ 0). Transport failures are transportErrors; another status is an error quoting
// Kong's message.
func (r *Replica) get(ctx context.Context, path string, timeout time.Duration, limit int64) ([]byte, error) {
	body, status, err := r.fetch(ctx, path, timeout, limit)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d: %s", path, status, truncate(messageOf(body)))
	}
	return body, nil
}

// fetch is a GET of path within timeout, returning the body (at most limit bytes when limit ≥
// 0) and status of any answer; err is a transportError (or a request that could not be built).
func (r *Replica) fetch(ctx context.Context, path string, timeout time.Duration, limit int64) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := r.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return nil, 0, transportError{scrub(err)}
	}
	defer resp.Body.Close()
	var rd io.Reader = resp.Body
	if limit >= 0 {
		rd = io.LimitReader(resp.Body, limit)
	}
	body, err := io.ReadAll(rd)
	if err != nil {
		return nil, 0, transportError{fmt.Errorf("read %s response: %w", path, scrub(err))}
	}
	return body, resp.StatusCode, nil
}

func (r *Replica) request(ctx context.Context, method, pathQuery string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, r.base.String()+pathQuery, body)
	if err != nil {
		return nil, fmt.Errorf("build %s %s request: %w", method, pathQuery, err)
	}
	if r.opts.Token != "" {
		req.Header.Set(AdminTokenHeader, r.opts.Token)
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range r.opts.Headers {
		req.Header[k] = vs
	}
	return req, nil
}

// parseRetryAfter reads delay-seconds (integer or, as Kong may send, fractional) or an HTTP date.
func parseRetryAfter(v string, now time.Time, max time.Duration) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		d = time.Duration(s * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d < 0 {
		d = 0
	}
	if d > max {
		d = max
	}
	return d
}

// messageOf extracts Kong's "message" from an error body; the body itself is never returned,
// since error bodies can echo entities (with private keys).
// tooLargeMessage explains a 413. Kong's own (JSON) means the config does not fit its LMDB map;
// nginx's (an HTML page) means the body exceeds the admin server's client_max_body_size, 10m by
// default: a config of about 8,000 Ingresses or more needs it raised.
func tooLargeMessage(body []byte, size int64) string {
	if m, ok := jsonMessage(body); ok {
		return truncate(m)
	}
	return fmt.Sprintf("the request body (%d bytes) exceeds the Kong admin API's client_max_body_size "+
		"(nginx answered 413, Kong's default is 10m): set KONG_NGINX_ADMIN_CLIENT_MAX_BODY_SIZE and "+
		"KONG_NGINX_ADMIN_CLIENT_BODY_BUFFER_SIZE above it", size)
}

// jsonMessage reads Kong's {"message": ...} error body.
func jsonMessage(body []byte) (string, bool) {
	var m struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(body, &m) != nil || m.Message == nil {
		return "", false
	}
	return RedactMessage(*m.Message), true
}

func messageOf(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil {
		return RedactMessage(m.Message)
	}
	return "(non-JSON response)"
}

func truncate(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// scrub keeps transport errors short: url.Error already names only method and URL.
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		if perr == nil {
			ue.URL = u.Redacted()
		}
	}
	return err
}

// transportError marks a failure to reach Kong at all, as opposed to an HTTP error answer.
type transportError struct{ err error }

func (e transportError) Error() string { return e.err.Error() }
func (e transportError) Unwrap() error { return e.err }

// isTransport reports whether err means Kong could not be reached.
func isTransport(err error) bool {
	var te transportError
	return errors.As(err, &te)
}
