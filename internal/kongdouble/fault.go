package kongdouble

import (
	"encoding/json"
	"net/http"
	"time"
)

// Fault changes how the double answers matching requests, to exercise a client's error paths.
type Fault struct {
	// Method and Path select requests (defaults POST and /config).
	Method, Path string
	// Status, if non-zero, is answered instead of handling the request (e.g. 413, 429, 500).
	Status int
	// RetryAfter is sent as the Retry-After header (Kong sends it with 429).
	RetryAfter string
	// Body replaces the default Kong-like JSON body for Status.
	Body string
	// Delay holds the request this long before answering (or handling it, when Status is 0),
	// unless the client gives up first: a slow Kong, or with a long Delay, a timeout.
	Delay time.Duration
	// Times is how many matching requests the fault applies to; 0 means until ClearFaults.
	Times int
}

// AddFault installs a fault. Faults are matched in the order they were added.
func (s *Server) AddFault(f Fault) {
	if f.Method == "" {
		f.Method = http.MethodPost
	}
	if f.Path == "" {
		f.Path = "/config"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// SetNextResponse makes the next POST /config answer status (with Retry-After if not empty).
func (s *Server) SetNextResponse(status int, retryAfter string) {
	s.AddFault(Fault{Status: status, RetryAfter: retryAfter, Times: 1})
}

// SetDelay makes every POST /config take d until ClearFaults: a slow Kong.
func (s *Server) SetDelay(d time.Duration) {
	s.AddFault(Fault{Delay: d})
}

// TaggedObject is a Kubernetes object as the k8s-* tags of its entities name it.
type TaggedObject struct {
	Name, Namespace, Kind, Group, Version, UID string
}

// RejectObjects makes the next times POST /config answer 400 naming objs, as the mock Admin API
// of KIC's golden harness (internal/dataplane/kong_client_golden_test.go) answers the first
// push of a case whose objects are annotated test.konghq.com/broken: whatever the config holds,
// one flattened error per object, carrying only the object's tags and the message "broken
// object" (BrokenObjectsBody).
func (s *Server) RejectObjects(times int, objs ...TaggedObject) {
	s.AddFault(Fault{Status: http.StatusBadRequest, Body: BrokenObjectsBody(objs...), Times: times})
}

// BrokenObjectsBody is the body of RejectObjects' 400: KIC's harness's, field for field.
func BrokenObjectsBody(objs ...TaggedObject) string {
	type message struct {
		Messages []string `json:"messages"`
	}
	type flattened struct {
		Errors []message `json:"errors"`
		Tags   []string  `json:"entity_tags"`
	}
	body := struct {
		Flattened []flattened `json:"flattened_errors"`
	}{Flattened: []flattened{}}
	for _, o := range objs {
		body.Flattened = append(body.Flattened, flattened{Errors: []message{{Messages: []string{"broken object"}}},
			Tags: []string{"k8s-name:" + o.Name, "k8s-namespace:" + o.Namespace, "k8s-kind:" + o.Kind,
				"k8s-group:" + o.Group, "k8s-version:" + o.Version, "k8s-uid:" + o.UID}})
	}
	b, _ := json.Marshal(body) // strings only: cannot fail
	return string(b)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	s.broadcast()
}

// takeFault returns the fault for a request, consuming one use of it.
func (s *Server) takeFault(method, path string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Method != method || f.Path != path {
			continue
		}
		c := *f
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &c
	}
	return nil
}

// kongMessage is Kong's message for the statuses it sends from POST /config.
func kongMessage(status int) string {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return `Configuration does not fit in LMDB database, consider raising the "lmdb_map_size" config for Kong`
	case http.StatusTooManyRequests:
		return "Currently loading previous configuration"
	case http.StatusServiceUnavailable:
		return "Kong currently exiting"
	case http.StatusGatewayTimeout:
		return "Timed out while loading configuration"
	case http.StatusUnauthorized:
		return "Invalid credentials. Token or User credentials required"
	default:
		return "An unexpected error occurred"
	}
}
