package kongdouble

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"
)

// The cases below mirror Kong's spec/02-integration/04-admin_api/15-off_spec.lua,
// describe("Admin API #off /config [flattened errors]"), and the table in
// spec/01-unit/01-db/01-schema/11-declarative_config/05-error-flattening_spec.lua. As there,
// each entity's first tag identifies it.

func svc(name string, tag string, extra map[string]any) map[string]any {
	m := map[string]any{"name": name, "tags": []any{tag}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// it("sanity"): one document with many independent faults; each faulty entity gets exactly its
// own entry, valid ones none.
func TestFlattenedSanity(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	cert, key := selfSigned(t, "example.com")
	flat, body := postFlat(t, s, map[string]any{
		"consumers": []any{
			map[string]any{"username": "valid_user", "tags": []any{"consumer-01"}},
			map[string]any{"username": "bobby_in_json_body", "not_allowed": true, "tags": []any{"consumer-02"}},
			map[string]any{"username": "credentials", "tags": []any{"consumer-04"},
				"basicauth_credentials": []any{
					map[string]any{"username": "superduper", "password": "hard2guess", "tags": []any{"basicauth_credentials-01"}},
					map[string]any{"username": "dont-add-extra-fields-yo", "password": "12354", "extra_field": "NO!",
						"tags": []any{"basicauth_credentials-02", "consumer-04"}},
				}},
		},
		"certificates": []any{
			map[string]any{"cert": cert, "key": key, "tags": []any{"certificate-01"}},
			map[string]any{"cert": "-----BEGIN CERTIFICATE-----\nMIICIzCCAYSgAwIBAgIUUMiD8e3GDZ+vs7XBmdXzMx\n-----END CERTIFICATE-----", "key": key, "tags": []any{"certificate-02"}},
		},
		"services": []any{
			svc("nope", "service-01", map[string]any{"host": "localhost", "port": 1234, "protocol": "nope",
				"routes": []any{
					map[string]any{"name": "valid.route", "protocols": []any{"http", "https"}, "methods": []any{"GET"},
						"hosts": []any{"test"}, "tags": []any{"route_service-01"}},
					map[string]any{"name": "nope.route", "protocols": []any{"tcp"}, "tags": []any{"route_service-02", "service-01"}},
				}}),
			svc("mis-matched", "service-02", map[string]any{"host": "localhost", "protocol": "tcp", "path": "/path"}),
			svc("okay", "service-03", map[string]any{"url": "http://localhost:1234"}),
			svc("bad-service-plugins", "service-04", map[string]any{"url": "http://localhost:1234",
				"plugins": []any{map[string]any{"name": "i-dont-exist", "config": map[string]any{}, "tags": []any{"service_plugin-01", "service-04"}}}}),
			map[string]any{"name": "invalid-id", "id": 123456, "url": "https://localhost:1234", "tags": []any{"service-06", "invalid-id"}},
			map[string]any{"name": "invalid-tags", "url": "https://localhost:1234", "tags": []any{"service-07", "invalid-tags", []any{1, 2, 3}, true}},
			map[string]any{"name": "", "url": "https://localhost:1234", "tags": []any{"service-08"}},
			map[string]any{"name": 1234, "url": "https://localhost:1234", "tags": []any{"service-09"}},
		},
		"upstreams": []any{
			map[string]any{"name": "ok", "tags": []any{"upstream-01"}, "hash_on": "ip"},
			map[string]any{"name": "bad", "tags": []any{"upstream-02"}, "hash_on": "ip", "host_header": 123,
				"healthchecks": map[string]any{"active": map[string]any{"concurrency": -1, "type": "http"}}},
			map[string]any{"name": "ok-bad-targets", "tags": []any{"upstream-03"}, "targets": []any{
				map[string]any{"target": "127.0.0.1:99", "tags": []any{"upstream_target-01", "upstream-03"}},
				map[string]any{"target": "hostname:1.0", "tags": []any{"upstream_target-02", "upstream-03"}},
			}},
		},
	})
	want := map[string][]string{
		"consumer-02":              {"not_allowed: unknown field"},
		"basicauth_credentials-02": {"extra_field: unknown field"},
		"service-01":               {"protocol: expected one of: grpc, grpcs, http, https, tcp, tls, tls_passthrough, udp"},
		"route_service-02":         {"@entity: must set one of 'sources', 'destinations', 'snis' when 'protocols' is 'tcp', 'tls' or 'udp'"},
		"service-02":               {"path: value must be null", "@entity: failed conditional validation given value of field 'protocol'"},
		"service_plugin-01":        {"name: plugin 'i-dont-exist' not enabled; add it to the 'plugins' configuration property"},
		"service-06":               {"id: expected a string"},
		"service-07":               {"tags.3: expected a string", "tags.4: expected a string"},
		"service-08":               {"name: length must be at least 1"},
		"service-09":               {"name: expected a string"},
		"upstream-02":              {"host_header: expected a string", "healthchecks.active.concurrency: value should be between 1 and 2147483648"},
		"upstream_target-02":       {"target: Invalid target ('hostname:1.0'); not a valid hostname or ip address"},
	}
	for tag, errs := range want {
		fe, ok := flat[tag]
		if !ok {
			t.Errorf("%s: no flattened entry", tag)
			continue
		}
		got := errorsOf(fe)
		sort.Strings(got)
		sort.Strings(errs)
		if !reflect.DeepEqual(got, errs) {
			t.Errorf("%s: errors %q, want %q", tag, got, errs)
		}
	}
	if fe := flat["certificate-02"]; fe == nil || len(errorsOf(fe)) != 1 || errorsOf(fe)[0][:26] != "cert: invalid certificate:" {
		t.Errorf("certificate-02: want one 'invalid certificate' error, got %v", fe)
	}
	if len(flat) != len(want)+1 {
		t.Errorf("%d flattened entries, want %d: %v", len(flat), len(want)+1, body["flattened_errors"])
	}
	// Invalid entity_* values are left out; the entity keeps them (also
	// it("omits top-level entity_* fields if they are invalid")).
	if _, ok := flat["service-06"]["entity_id"]; ok {
		t.Error("service-06: entity_id should be omitted for a non-string id")
	}
	if _, ok := flat["service-07"]["entity_tags"]; ok {
		t.Error("service-07: entity_tags should be omitted when a tag is not a string")
	}
	if _, ok := flat["service-09"]["entity_name"]; ok {
		t.Error("service-09: entity_name should be omitted for a numeric name")
	}
	if flat["service-01"]["entity_name"] != "nope" || flat["service-01"]["entity_type"] != "service" {
		t.Errorf("service-01: entity_name/type: %v", flat["service-01"])
	}
	if fields := body["fields"].(map[string]any); len(fields) != 0 {
		t.Errorf("fields should be drained into flattened_errors: %v", fields)
	}
	if s.Hash() != EmptyHash {
		t.Error("an invalid config must not be loaded")
	}
}

// it("flattens nested, entity field errors") and it("preserves foreign keys from nested entity
// collections"): nested entities carry their parent's key; the parent entry omits children.
func TestFlattenNestedEntities(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	id := "cb019421-62c2-47a8-b714-d7567b114037"
	flat, _ := postFlat(t, s, map[string]any{"services": []any{map[string]any{
		"id": id, "name": "test", "host": "localhost", "port": 1234, "protocol": "nope", "tags": []any{"service-01"},
		"routes": []any{
			map[string]any{"super_duper_invalid": true, "tags": []any{"route-01"}},
			map[string]any{"hosts": []any{"invalid"}, "paths": []any{"/"}, "protocols": []any{"nope"}, "tags": []any{"route-02"}},
		},
		"plugins": []any{map[string]any{"name": "i-do-not-exist", "config": map[string]any{}, "tags": []any{"plugin-01"}}},
	}}})
	r1 := flat["route-01"]
	if !hasError(r1, "super_duper_invalid: unknown field") ||
		!hasError(r1, "@entity: must set one of 'methods', 'hosts', 'headers', 'paths', 'snis' when 'protocols' is 'https'") {
		t.Errorf("route-01: %v", errorsOf(r1))
	}
	if got := r1["entity"].(map[string]any)["service"]; !reflect.DeepEqual(got, map[string]any{"id": id}) {
		t.Errorf("route-01: entity.service = %v, want {id: %s}", got, id)
	}
	if !hasError(flat["route-02"], "protocols: unknown type: nope") {
		t.Errorf("route-02: %v", errorsOf(flat["route-02"]))
	}
	if !hasError(flat["plugin-01"], "name: plugin 'i-do-not-exist' not enabled; add it to the 'plugins' configuration property") {
		t.Errorf("plugin-01: %v", errorsOf(flat["plugin-01"]))
	}
	svcEnt := flat["service-01"]["entity"].(map[string]any)
	if _, ok := svcEnt["routes"]; ok || flat["service-01"]["entity_id"] != id {
		t.Errorf("service-01 entry should omit nested routes and keep its id (it(\"preserves IDs from the input\")): %v", flat["service-01"])
	}
}

// it("drains errors from the top-level fields object"): unknown top-level keys stay in `fields`
// (Kong cannot flatten them); entity errors move to flattened_errors. (Kong's fourth entry there
// is a plugin config error; the double does not validate plugin configs.)
func TestDrainsTopLevelFields(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	flat, body := postFlat(t, s, map[string]any{
		"abnormal_extra_field": 123,
		"services":             []any{svc("nope", "service-01", map[string]any{"host": "localhost", "protocol": "nope"})},
	})
	if !reflect.DeepEqual(body["fields"], map[string]any{"abnormal_extra_field": "unknown field"}) || len(flat) != 1 {
		t.Fatalf("fields %v, flattened %v", body["fields"], flat)
	}
	b := mustJSON(t, map[string]any{"_format_version": "3.0", "abnormal_extra_field": 123})
	_, unflat, _ := do(t, s, http.MethodPost, "/config?flatten_errors=off", "application/json", b)
	if _, ok := unflat["flattened_errors"]; ok {
		t.Error("flatten_errors=off must not flatten")
	}
}

// it("origin error do not loss when enable flatten_errors - (#12167)"): duplicate usernames.
func TestDuplicateConsumerUsername(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	flat, _ := postFlat(t, s, map[string]any{"consumers": []any{
		map[string]any{"id": "a73dc9a7-93df-584d-97c0-7f41a1bbce3d", "username": "test-consumer-1", "tags": []any{"consumer-1"}},
		map[string]any{"id": "a73dc9a7-93df-584d-97c0-7f41a1bbce32", "username": "test-consumer-1", "tags": []any{"consumer-2"}},
	}})
	fe := flat["consumer-2"]
	if len(flat) != 1 || fe["entity_id"] != "a73dc9a7-93df-584d-97c0-7f41a1bbce32" ||
		!hasError(fe, "@entity: uniqueness violation: 'consumers' entity with username set to 'test-consumer-1' already declared") {
		t.Fatalf("got %v", flat)
	}
}

// it("correctly handles duplicate upstream target errors"): the duplicate's entity_id is the id
// Kong derives from upstream and target, and the message names it.
func TestDuplicateUpstreamTarget(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	k8s := []any{"k8s-name:httproute-testing", "k8s-namespace:default", "k8s-kind:HTTPRoute"}
	flat, _ := postFlat(t, s, map[string]any{"upstreams": []any{map[string]any{
		"name": "httproute.default.httproute-testing.1", "id": "f9792964-6797-482c-bfdf-08220a4f6839", "tags": k8s,
		"targets": []any{
			map[string]any{"target": "10.244.0.12:80", "weight": 1, "tags": []any{"target-1"}},
			map[string]any{"target": "10.244.0.12:80", "weight": 1, "tags": []any{"target-2"}},
		},
	}}})
	fe := flat["target-2"]
	if fe == nil || len(flat) != 1 {
		t.Fatalf("want exactly one entry, for target-2: %v", flat)
	}
	want := fmt.Sprintf("@entity: uniqueness violation: 'targets' entity with primary key set to '%s' already declared", fe["entity_id"])
	if fe["entity_id"] == nil || !hasError(fe, want) || !reflect.DeepEqual(fe["entity_tags"], []any{"target-2"}) {
		t.Fatalf("got %v", fe)
	}
}

// The faults a controller's documents can carry, each on an entity with KIC-style k8s tags.
func TestKubernetesStyleFaults(t *testing.T) {
	tags := func(name string) []any {
		return []any{name, "k8s-name:" + name, "k8s-namespace:default", "k8s-kind:Ingress", "k8s-group:networking.k8s.io", "k8s-version:v1"}
	}
	route := func(name string, paths ...any) map[string]any {
		return map[string]any{"name": name, "paths": paths, "tags": tags(name)}
	}
	cases := []struct {
		name string
		doc  map[string]any
		tag  string
		want string
	}{
		{"duplicate route name", map[string]any{"services": []any{svc("a", "svc-a", map[string]any{"host": "a", "routes": []any{route("r", "/a"), route("r2", "/b")}}),
			svc("b", "svc-b", map[string]any{"host": "b", "routes": []any{map[string]any{"name": "r", "paths": []any{"/c"}, "tags": tags("dup")}}})}},
			"dup", "@entity: uniqueness violation: 'routes' entity with name set to 'r' already declared"},
		{"duplicate service name", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a"}), svc("a", "svc-2", map[string]any{"host": "b"})}},
			"svc-2", "@entity: uniqueness violation: 'services' entity with name set to 'a' already declared"},
		{"duplicate upstream name", map[string]any{"upstreams": []any{svc("u.svc", "up-1", nil), svc("u.svc", "up-2", nil)}},
			"up-2", "@entity: uniqueness violation: 'upstreams' entity with name set to 'u.svc' already declared"},
		{"bad port", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "port": 70000})}},
			"svc-1", "port: value should be between 0 and 65535"},
		{"bad service host", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "web svc"})}},
			"svc-1", "host: invalid value: web svc"},
		{"bad protocol", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "protocol": "ftp"})}},
			"svc-1", "protocol: expected one of: grpc, grpcs, http, https, tcp, tls, tls_passthrough, udp"},
		{"path without slash", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{route("r", "/ok", "foo")}})}},
			"r", "paths.2: should start with: / (fixed path) or ~/ (regex path)"},
		{"invalid regex", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{route("r", "~/api/(v1|v2")}})}},
			"r", "paths.1: invalid regex: '/api/(v1|v2' (PCRE returned: error parsing regexp: missing closing ): `/api/(v1|v2`)"},
		{"host with two wildcards", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{
			map[string]any{"name": "r", "hosts": []any{"ok.example.com", "*.*.example.com"}, "tags": tags("r")}}})}},
			"r", "hosts.2: invalid wildcard: must have at most one wildcard"},
		{"host with inner wildcard", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{
			map[string]any{"name": "r", "hosts": []any{"a.*.com"}, "tags": tags("r")}}})}},
			"r", "hosts.1: invalid wildcard: must be placed at leftmost or rightmost label"},
		{"host not a DNS name", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{
			map[string]any{"name": "r", "hosts": []any{"bad..example.com"}, "tags": tags("r")}}})}},
			"r", "hosts.1: invalid hostname: bad..example.com"},
		{"unknown field", map[string]any{"services": []any{svc("a", "svc-1", map[string]any{"host": "a", "routes": []any{map[string]any{"name": "r", "paths": []any{"/"}, "stripPath": true, "tags": tags("r")}}})}},
			"r", "stripPath: unknown field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(Options{})
			defer s.Close()
			flat, _ := postFlat(t, s, c.doc)
			if len(flat) != 1 || !hasError(flat[c.tag], c.want) {
				t.Fatalf("want one entry %s with %q, got %v", c.tag, c.want, flat)
			}
		})
	}
}

// Duplicate SNIs across certificates are rejected on the second SNI, which points at its
// certificate by id.
func TestDuplicateSNI(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	cert, key := selfSigned(t, "a.example.com")
	certID := "d83994d2-c24c-4315-b431-ee76b6611dcb"
	flat, _ := postFlat(t, s, map[string]any{"certificates": []any{
		map[string]any{"cert": cert, "key": key, "tags": []any{"cert-1"}, "snis": []any{map[string]any{"name": "a.example.com", "tags": []any{"sni-1"}}}},
		map[string]any{"id": certID, "cert": cert, "key": key, "tags": []any{"cert-2"}, "snis": []any{map[string]any{"name": "a.example.com", "tags": []any{"sni-2"}}}},
	}})
	fe := flat["sni-2"]
	if len(flat) != 1 || !hasError(fe, "@entity: uniqueness violation: 'snis' entity with name set to 'a.example.com' already declared") {
		t.Fatalf("got %v", flat)
	}
	if got := fe["entity"].(map[string]any)["certificate"]; !reflect.DeepEqual(got, map[string]any{"id": certID}) {
		t.Errorf("sni entity.certificate = %v", got)
	}
}

// SNI names follow Kong's wildcard_host rules.
func TestSNINames(t *testing.T) {
	cert, key := selfSigned(t, "a.example.com")
	for name, want := range map[string]string{
		"a.*.example.com":    "name: wildcard must be leftmost or rightmost character",
		"10.0.0.1":           "name: must not be an IP",
		"a.example.com:8443": "name: must not have a port",
		"bad host":           "name: invalid value: bad host",
	} {
		s := New(Options{})
		flat, _ := postFlat(t, s, map[string]any{"certificates": []any{map[string]any{"cert": cert, "key": key,
			"snis": []any{map[string]any{"name": name, "tags": []any{"sni"}}}}}})
		if !hasError(flat["sni"], want) {
			t.Errorf("%s: want %q, got %v", name, want, flat)
		}
		s.Close()
	}
}

// it("certificates should be auto-related with attach snis from /config response"): a valid
// certificate with nested SNIs loads.
func TestCertificateWithSNIsLoads(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	cert, key := selfSigned(t, "foo.example")
	doc := map[string]any{"_format_version": "3.0", "certificates": []any{map[string]any{
		"id": "d83994d2-c24c-4315-b431-ee76b6611dcb", "cert": cert, "key": key,
		"snis": []any{map[string]any{"name": "foo.example", "id": "1c6e83b7-c9ad-40ac-94e8-52f5ee7bde44"}},
	}}}
	code, body := postConfig(t, s, "?flatten_errors=1", mustJSON(t, doc))
	if code != http.StatusCreated {
		t.Fatalf("%d %v", code, body)
	}
	sni := body["snis"].(map[string]any)["1c6e83b7-c9ad-40ac-94e8-52f5ee7bde44"].(map[string]any)
	if !reflect.DeepEqual(sni["certificate"], map[string]any{"id": "d83994d2-c24c-4315-b431-ee76b6611dcb"}) {
		t.Errorf("sni not related to its certificate: %v", sni)
	}
}

func selfSigned(t *testing.T, host string) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalECPrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}))
}
