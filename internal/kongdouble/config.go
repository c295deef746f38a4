package kongdouble

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// input is a POST /config body after content negotiation: a config string (hashed as sent) or
// a top-level JSON object (hashed by re-encoding; check_hash can never match it, as in Kong).
type input struct {
	str   string
	obj   map[string]any
	isObj bool
}

func (s *Server) postConfig(w http.ResponseWriter, r *http.Request, body []byte) {
	q := r.URL.Query()
	flatten := truthy(q.Get("flatten_errors"))
	checkHash := q.Get("check_hash") == "1"
	in, status, msg := readInput(r.Header.Get("Content-Type"), body)
	if status == http.StatusUnsupportedMediaType {
		w.WriteHeader(status)
		return
	}
	if status != 0 {
		writeJSON(w, status, map[string]any{"message": msg})
		return
	}
	doc, raw, newHash := in.obj, in.str, ""
	if in.isObj {
		b, _ := json.Marshal(in.obj)
		raw = string(b)
	} else {
		newHash = md5hex([]byte(in.str))
		var perr string
		if doc, perr = parseConfigString(in.str); perr != "" {
			writeJSON(w, http.StatusBadRequest, invalidBody(map[string]any{"error": perr}, nil, false))
			return
		}
	}
	if checkHash && newHash != "" && newHash == s.Hash() {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	version, plugins := s.version()
	res := validate(doc, plugins, version, s.RouterFlavor())
	if !res.ok() {
		fields := res.top
		if !flatten {
			fields = res.nested()
		}
		writeJSON(w, http.StatusBadRequest, invalidBody(fields, res.flat, flatten))
		return
	}
	if held := s.refusedHeld(doc); len(held) > 0 {
		writeRefused(w, held)
		return
	}
	if s.opts.MaxConfigBytes > 0 && len(raw) > s.opts.MaxConfigBytes {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]any{"message": kongMessage(http.StatusRequestEntityTooLarge)})
		return
	}
	if newHash == "" {
		newHash = md5hex([]byte(raw))
	}
	if len(res.entities) == 0 {
		newHash = EmptyHash // Kong reports the empty hash for a config without entities
	}
	if !s.load(w, r, &loaded{raw: raw, sum: newHash, doc: doc, entities: res.entities}) {
		return
	}
	writeJSON(w, http.StatusCreated, res.entities)
}

// load installs a config, taking LoadTime (plus LoadTimePerMB); a concurrent load is refused with 429 and the
// seconds left as Retry-After. It returns false when it answered (429) or gave up.
func (s *Server) load(w http.ResponseWriter, r *http.Request, l *loaded) bool {
	s.mu.Lock()
	now := time.Now()
	if left := s.loadUntil.Sub(now); left > 0 {
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(left.Seconds()))))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"message": kongMessage(http.StatusTooManyRequests)})
		return false
	}
	d := s.loadDuration(len(l.raw))
	if d > 0 {
		s.loadUntil = now.Add(d)
		s.broadcast()
	}
	s.mu.Unlock()
	ok := s.delay(r, d)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadUntil = time.Time{}
	if !ok {
		w.WriteHeader(0)
		return false
	}
	s.cur = l
	return true
}

// readInput applies Kong's content-type rules; status is non-zero for an error answer.
func readInput(contentType string, body []byte) (input, int, string) {
	const expected = "expected a declarative configuration"
	ct := strings.ToLower(contentType)
	switch {
	case ct == "":
		if len(body) == 0 {
			return input{}, http.StatusBadRequest, expected
		}
		return input{}, http.StatusUnsupportedMediaType, ""
	case strings.HasPrefix(ct, "application/json"):
		return jsonInput(body)
	case strings.HasPrefix(ct, "application/yaml"), strings.HasPrefix(ct, "text/yaml"):
		if len(body) == 0 {
			return input{}, http.StatusBadRequest, expected
		}
		return input{str: string(body)}, 0, ""
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		vals, err := url.ParseQuery(string(body))
		if err != nil || vals.Get("config") == "" {
			return input{}, http.StatusBadRequest, expected
		}
		return input{str: vals.Get("config")}, 0, ""
	case strings.HasPrefix(ct, "multipart/form-data"):
		return multipartInput(contentType, body)
	}
	return input{}, http.StatusUnsupportedMediaType, ""
}

func jsonInput(body []byte) (input, int, string) {
	if len(bytes.TrimSpace(body)) == 0 {
		return input{}, http.StatusBadRequest, "expected a declarative configuration"
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return input{}, http.StatusBadRequest, "Cannot parse JSON body"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return input{str: string(body)}, 0, ""
	}
	if _, ok := obj["_format_version"]; ok {
		return input{obj: obj, isObj: true}, 0, ""
	}
	if c, ok := obj["config"]; ok {
		if str, ok := c.(string); ok {
			return input{str: str}, 0, ""
		}
		return input{}, http.StatusBadRequest, "expected a declarative configuration"
	}
	return input{str: string(body)}, 0, ""
}

func multipartInput(contentType string, body []byte) (input, int, string) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return input{}, http.StatusBadRequest, "expected a declarative configuration"
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(64 << 20)
	if err != nil || len(form.Value["config"]) == 0 {
		return input{}, http.StatusBadRequest, "expected a declarative configuration"
	}
	return input{str: form.Value["config"][0]}, 0, ""
}

// parseConfigString decodes a declarative config given as JSON or YAML text.
func parseConfigString(s string) (map[string]any, string) {
	const prefix = "failed parsing declarative configuration: "
	var v any
	trim := strings.TrimSpace(s)
	if strings.HasPrefix(trim, "{") && json.Unmarshal([]byte(s), &v) == nil {
		// JSON decoded directly
	} else if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, prefix + err.Error()
	} else {
		v = normalize(v)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, prefix + "expected an object"
	}
	return m, ""
}

// normalize turns YAML values into the shapes encoding/json produces (string-keyed maps,
// float64 numbers), so validation handles one representation.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalize(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalize(x)
		}
		return t
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	}
	return v
}

// invalidBody is Kong's code 14 error; flattened errors are included only when asked for.
func invalidBody(fields map[string]any, flat []*flatError, flatten bool) map[string]any {
	if fields == nil {
		fields = map[string]any{}
	}
	body := map[string]any{
		"code":    14,
		"name":    "invalid declarative configuration",
		"message": "declarative config is invalid: " + luaPretty(fields),
		"fields":  fields,
	}
	if flatten {
		out := make([]any, 0, len(flat))
		for _, f := range flat {
			out = append(out, f)
		}
		body["flattened_errors"] = out
	}
	return body
}

// truthy is Kong's reading of flatten_errors: true, 1, on, yes (any case).
func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "true", "1", "on", "yes":
		return true
	}
	return false
}
