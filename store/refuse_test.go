package store

import (
	"strings"
	"testing"
)

// TestCheckRules runs one object per rule through the checked reader: the fields refused (in
// order) or, for valid objects, none; notes where a valid object routes nothing.
func TestCheckRules(t *testing.T) {
	const ing = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: ns}\n"
	const svcHead = "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\n"
	const slice = "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: e, namespace: ns}\n"
	const secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: c, namespace: ns}\n"
	const plugin = "apiVersion: configuration.konghq.com/v1\nkind: KongPlugin\nmetadata: {name: p, namespace: ns}\nplugin: cors\n"
	backend := "backend: {service: {name: web, port: {number: 80}}}"
	db := "defaultBackend: {service: {name: web, port: {number: 80}}}"
	cases := []struct {
		name, doc string
		fields    []string // refused fields, sorted
		reason    string   // a substring of the first refusal's reason
		note      string
	}{
		{"valid ingress", ing + "spec: {" + db + "}", nil, "", ""},
		{"ingress name upper case", strings.Replace(ing, "name: i,", "name: I,", 1) + "spec: {" + db + "}",
			[]string{"metadata.name"}, "RFC 1123 subdomain", ""},
		{"namespace with a dot", strings.Replace(ing, "namespace: ns", "namespace: n.s", 1) + "spec: {" + db + "}",
			[]string{"metadata.namespace"}, "must not contain dots", ""},
		{"ingress without rules or default backend", ing + "spec: {tls: [{hosts: [a.example.com], secretName: c}]}",
			[]string{"spec"}, "either `defaultBackend` or `rules`", ""},
		{"rule host without http is a note", ing + "spec: {rules: [{host: a.example.com}]}", nil, "",
			`Ingress ns/i: spec.rules[0]: host "a.example.com" has no http paths; it routes nothing`},
		{"rule host an IP", ing + "spec: {rules: [{host: 10.0.0.1, http: {paths: [{path: /, pathType: Prefix, " + backend + "}]}}]}",
			[]string{"spec.rules[0].host"}, "not an IP address", ""},
		{"wildcard host two stars", ing + "spec: {rules: [{host: '*.*.a.com', http: {paths: [{path: /, pathType: Prefix, " + backend + "}]}}]}",
			[]string{"spec.rules[0].host"}, "wildcard", ""},
		{"http without paths", ing + "spec: {rules: [{host: a.com, http: {paths: []}}]}",
			[]string{"spec.rules[0].http.paths"}, "required", ""},
		{"pathType missing", ing + "spec: {rules: [{http: {paths: [{path: /, " + backend + "}]}}]}",
			[]string{"spec.rules[0].http.paths[0].pathType"}, "pathType must be specified", ""},
		{"prefix path relative", ing + "spec: {rules: [{http: {paths: [{path: a, pathType: Prefix, " + backend + "}]}}]}",
			[]string{"spec.rules[0].http.paths[0].path"}, "absolute", ""},
		{"exact path dot segment", ing + "spec: {rules: [{http: {paths: [{path: /a/../b, pathType: Exact, " + backend + "}]}}]}",
			[]string{"spec.rules[0].http.paths[0].path"}, "must not contain '/../'", ""},
		{"implementation-specific dot segment is allowed", ing + "spec: {rules: [{http: {paths: [{path: /a/../b, pathType: ImplementationSpecific, " + backend + "}]}}]}",
			nil, "", ""},
		{"unknown path type", ing + "spec: {rules: [{http: {paths: [{path: /, pathType: Regex, " + backend + "}]}}]}",
			[]string{"spec.rules[0].http.paths[0].pathType"}, `unsupported value "Regex"`, ""},
		{"backend without port", ing + "spec: {defaultBackend: {service: {name: web}}}",
			[]string{"spec.defaultBackend"}, "port name or number is required", ""},
		{"backend service name with a dot", ing + "spec: {defaultBackend: {service: {name: a.b, port: {number: 80}}}}",
			[]string{"spec.defaultBackend.service.name"}, "must not contain dots", ""},
		{"backend service name starting with a digit (relaxed rule)", ing + "spec: {defaultBackend: {service: {name: 1web, port: {number: 80}}}}", nil, "", ""},
		{"tls host and secret name", ing + "spec: {" + db + ", tls: [{hosts: [A.com], secretName: Bad}]}",
			[]string{"spec.tls[0].hosts[0]", "spec.tls[0].secretName"}, "RFC 1123", ""},
		{"ingress.class annotation differing from ingressClassName is kept", strings.Replace(ing, "namespace: ns}", "namespace: ns, annotations: {kubernetes.io/ingress.class: nginx}}", 1) +
			"spec: {ingressClassName: kong, " + db + "}", nil, "", ""},
		{"label key and value", strings.Replace(ing, "namespace: ns}", "namespace: ns, labels: {a/b/c: x, ok: 'not ok'}}", 1) + "spec: {" + db + "}",
			[]string{"metadata.labels[a/b/c]", "metadata.labels[ok]"}, "label key", ""},
		{"annotation key", strings.Replace(ing, "namespace: ns}", "namespace: ns, annotations: {'konghq.com/headers.': v}}", 1) + "spec: {" + db + "}",
			[]string{"metadata.annotations[konghq.com/headers.]"}, "name part must", ""},
		{"annotations over 256 KiB", strings.Replace(ing, "namespace: ns}", "namespace: ns, annotations: {a: "+strings.Repeat("x", 256<<10)+"}}", 1) + "spec: {" + db + "}",
			[]string{"metadata.annotations"}, "may not be more than 262144 bytes", ""},
		{"service name with a dot", strings.Replace(svcHead, "name: s,", "name: s.v1,", 1) + "spec: {ports: [{port: 80}]}",
			[]string{"metadata.name"}, "must not contain dots", ""},
		{"service without ports", svcHead + "spec: {selector: {app: a}}", []string{"spec.ports"}, "required", ""},
		{"headless service without ports", svcHead + "spec: {clusterIP: None}", nil, "", ""},
		{"externalName service without ports", svcHead + "spec: {type: ExternalName, externalName: example.com.}", nil, "", ""},
		{"externalName not DNS", svcHead + "spec: {type: ExternalName, externalName: 'not dns'}",
			[]string{"spec.externalName"}, "RFC 1123", ""},
		{"two unnamed ports, bad protocol and target port", svcHead + "spec: {ports: [{port: 80}, {port: 81, protocol: HTTP, targetPort: 70000}]}",
			[]string{"spec.ports[0].name", "spec.ports[1].name", "spec.ports[1].protocol", "spec.ports[1].targetPort"}, "required", ""},
		{"service type unknown", svcHead + "spec: {type: Magic, ports: [{port: 80}]}", []string{"spec.type"}, "unsupported", ""},
		{"slice without addressType", slice + "endpoints: [{addresses: [10.0.0.1]}]", []string{"addressType"}, "required", ""},
		{"slice addresses", slice + "addressType: IPv4\nendpoints: [{addresses: [127.0.0.1]}, {addresses: []}, {addresses: ['fd00::1']}]",
			[]string{"endpoints[0].addresses[0]", "endpoints[1].addresses", "endpoints[2].addresses[0]"}, "loopback", ""},
		{"slice FQDN", slice + "addressType: FQDN\nendpoints: [{addresses: [a.example.com, 'not dns']}]",
			[]string{"endpoints[0].addresses[1]"}, "", ""},
		{"slice ports", slice + "addressType: IPv6\nports: [{port: 80}, {port: 81}, {name: Bad, protocol: HTTP}]\nendpoints: [{addresses: ['fd00::1']}]",
			[]string{"ports[1].name", "ports[2].name", "ports[2].protocol"}, "duplicate", ""},
		{"tls secret without key", secret + "type: kubernetes.io/tls\nstringData: {tls.crt: x}", []string{"data[tls.key]"}, "kubernetes.io/tls", ""},
		{"tls secret with both keys", secret + "type: kubernetes.io/tls\nstringData: {tls.crt: x, tls.key: 'k'}", nil, "", ""},
		{"secret key invalid", secret + "stringData: {'a b': x}", []string{"stringData[a b]"}, "valid config key", ""},
		{"basic-auth secret without username or password", secret + "type: kubernetes.io/basic-auth\nstringData: {other: x}", []string{"data[username]"}, "password", ""},
		{"plugin config and configFrom", plugin + "config: {}\nconfigFrom: {secretKeyRef: {name: a, key: b}}", []string{"configFrom"}, "Using both config and configFrom", ""},
		{"plugin configFrom and configPatches", plugin + "configFrom: {secretKeyRef: {name: a, key: b}}\nconfigPatches: [{path: /a, valueFrom: {secretKeyRef: {name: a, key: b}}}]",
			[]string{"configPatches"}, "Using both configFrom and configPatches", ""},
		{"plugin enums", plugin + "protocols: [http, quic]\nrun_on: third", []string{"protocols[1]", "run_on"}, "unsupported", ""},
		{"consumer tags", "apiVersion: configuration.konghq.com/v1\nkind: KongConsumer\nmetadata: {name: c, namespace: ns}\nusername: u\nspec: {tags: ['', " + strings.Repeat("t,", 20) + "]}",
			[]string{"spec.tags", "spec.tags[0]"}, "too many", ""},
		{"tcpingress rule ports and service name", "apiVersion: configuration.konghq.com/v1beta1\nkind: TCPIngress\nmetadata: {name: t, namespace: ns}\nspec: {rules: [{port: 0, backend: {serviceName: '', servicePort: 70000}}, {port: 9000, backend: {serviceName: s, servicePort: 80}}]}\n",
			[]string{"spec.rules[0].backend.serviceName", "spec.rules[0].backend.servicePort", "spec.rules[0].port"}, "required", ""},
		{"udpingress valid", "apiVersion: configuration.konghq.com/v1beta1\nkind: UDPIngress\nmetadata: {name: u, namespace: ns}\nspec: {rules: [{port: 53, backend: {serviceName: dns, servicePort: 53}}]}\n", nil, "", ""},
		{"cluster-scoped namespace dropped", "apiVersion: configuration.konghq.com/v1\nkind: KongClusterPlugin\nmetadata: {name: p, namespace: ns}\nplugin: cors\n", nil, "", ""},
		{"namespace name", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team.b}\n", []string{"metadata.name"}, "must not contain dots", ""},
		{"gateway api name", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: a_b, namespace: ns}\n", []string{"metadata.name"}, "RFC 1123 subdomain", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, refused, notes, err := decodeManifests("x.yaml", strings.NewReader(c.doc), true)
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, r := range refused {
				if len(fields) == 0 || fields[len(fields)-1] != r.Field {
					fields = append(fields, r.Field)
				}
			}
			if strings.Join(fields, " ") != strings.Join(c.fields, " ") {
				t.Errorf("refused fields %q, want %q (%v)", fields, c.fields, refused)
			}
			if len(refused) > 0 && (!strings.Contains(refused[0].Reason, c.reason) ||
				!strings.Contains(refused[0].Reason, "; the API server would refuse the ")) {
				t.Errorf("first reason %q (want %q in it)", refused[0].Reason, c.reason)
			}
			if len(objs) != 1 {
				t.Errorf("%d objects kept, want 1 (notes %v)", len(objs), notes)
			}
			var got []string
			for _, n := range notes {
				got = append(got, n.Msg)
			}
			if strings.Join(got, "\n") != c.note {
				t.Errorf("notes %q, want %q", got, c.note)
			}
		})
	}
}

// TestDecodeManifestsDoesNotCheck: the unchecked decoder (admission, tests) keeps every object.
func TestDecodeManifestsDoesNotCheck(t *testing.T) {
	objs, notes, err := DecodeManifests("x.yaml", strings.NewReader("apiVersion: v1\nkind: Service\nmetadata: {name: Bad.Name}\n"))
	if err != nil || len(objs) != 1 || len(notes) != 0 {
		t.Fatalf("objs %d, notes %v, err %v", len(objs), notes, err)
	}
}
