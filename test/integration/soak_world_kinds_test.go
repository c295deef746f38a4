//go:build integration

package integration

import "math/rand/v2"

// Kinds added to the soak after its first seeds were recorded: they sit in world.later, and the
// references other objects make to them are fixed by name (no random draw), so recorded seeds
// keep their schedules.

// laterKinds are KongConsumerGroup, KongIngress and IngressClassParameters, each from a small pool.
func (w *world) laterKinds() []soakKind {
	return []soakKind{
		{"KongConsumerGroup", "configuration.konghq.com", "v1beta1", "kongconsumergroups", true, names("grp-", 2), 1, (*world).consumerGroup},
		{"KongIngress", "configuration.konghq.com", "v1", "kongingresses", true, []string{"ki-0"}, 1, (*world).kongIngress},
		{"IngressClassParameters", "configuration.konghq.com", "v1alpha1", "ingressclassparameterses", true, []string{"icp"}, 1, (*world).classParams},
		{"KongVault", "configuration.konghq.com", "v1alpha1", "kongvaults", false, names(w.prefix+"-vault-", 3), 1, (*world).kongVault},
		{"KongCustomEntity", "configuration.konghq.com", "v1alpha1", "kongcustomentities", true, names("ce-", 3), 1, (*world).customEntity},
	}
}

// customEntity is a KongCustomEntity of our class or another: ce-0 and ce-1 are degraphql
// routes (the doubles enable the degraphql plugin), ce-2 of a type Kong does not know (the CRD
// makes spec.type immutable, so a name keeps its type); following one of the world's KongPlugins
// (attached to Kong services through the Ingresses' and Services' konghq.com/plugins) or none,
// now and then with fields Kong's schema refuses (a uri that is not a string) or that only Kong
// refuses (a method it does not know: Kong rejects the entity, traced to its object).
func (w *world) customEntity(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongCustomEntity", "configuration.konghq.com", "v1alpha1", ns, name)
	typ := "degraphql_routes"
	if name == "ce-2" {
		typ = "soak_unknown_things"
	}
	fields := map[string]any{"uri": "/" + name, "query": "query{ " + name + " }"}
	switch r.IntN(6) {
	case 0:
		fields["uri"] = 1
	case 1:
		fields["methods"] = []any{pick(r, "GET", "POST", "GOT")}
	}
	spec := map[string]any{"controllerName": pick(r, w.class, w.class, w.class+"-other"), "type": typ, "fields": fields}
	if r.IntN(3) > 0 {
		spec["parentRef"] = map[string]any{"group": "configuration.konghq.com", "kind": "KongPlugin",
			"name": pick(r, "plug-0", "plug-1", "plug-2")}
	}
	o["spec"] = spec
	return o
}

// kongVault is a cluster-scoped vault of our class or another, its prefix one of two that the
// world's vaults contend for (the oldest keeps it), now and then one Kong refuses, its config
// now and then not an object.
func (w *world) kongVault(r *rand.Rand, _, name string) map[string]any {
	o := w.meta("KongVault", "configuration.konghq.com", "v1alpha1", "", name)
	setAnn(o, "kubernetes.io/ingress.class", pick(r, w.class, w.class, w.class+"-other"))
	spec := map[string]any{"backend": "env", "prefix": pick(r, "soak-a", "soak-b", "soak-b", "env")}
	switch r.IntN(4) {
	case 0:
		spec["config"] = []any{"not", "an", "object"}
	case 1, 2:
		spec["config"] = map[string]any{"prefix": pick(r, "app_", "soak_")}
	}
	if r.IntN(2) == 0 {
		spec["description"] = "soak vault"
	}
	o["spec"] = spec
	return o
}

// consumerGroup is a group of our class or another, now and then with plugins. Consumers name
// grp-0, grp-1 and the never-created grp-2 (consumerGroupsOf).
func (w *world) consumerGroup(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongConsumerGroup", "configuration.konghq.com", "v1beta1", ns, name)
	setAnn(o, "kubernetes.io/ingress.class", pick(r, w.class, w.class, w.class+"-other"))
	if r.IntN(3) == 0 {
		setAnn(o, "konghq.com/plugins", pick(r, "plug-0", "plug-1", "plug-2"))
	}
	return o
}

// consumerGroupsOf is the fixed membership of a soak consumer: cons-N joins grp-N.
func consumerGroupsOf(name string) []any { return []any{"grp-" + name[len(name)-1:]} }

// kongIngress is an upstream override (svc-1 names ki-0), sometimes with fields Kong refuses
// and now and then with the proxy section the CRD refuses.
func (w *world) kongIngress(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongIngress", "configuration.konghq.com", "v1", ns, name)
	up := map[string]any{"algorithm": pick(r, "round-robin", "least-connections", "consistent-hashing")}
	if up["algorithm"] == "consistent-hashing" {
		up["hash_on"] = "header"
		up["hash_on_header"] = "x-user"
	}
	if r.IntN(3) == 0 {
		up["slots"] = pick(r, 100, 1000, 5)
	}
	o["upstream"] = up
	if r.IntN(8) == 0 {
		o["proxy"] = map[string]any{"retries": 3}
	}
	return o
}

// classParams are the parameters our IngressClass names (icp in the first namespace): service
// upstreams and legacy regex detection on or off.
func (w *world) classParams(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("IngressClassParameters", "configuration.konghq.com", "v1alpha1", ns, name)
	o["spec"] = map[string]any{"serviceUpstream": r.IntN(2) == 0, "enableLegacyRegexDetection": r.IntN(2) == 0}
	return o
}

// classParamsRef is spec.parameters of our IngressClass.
func (w *world) classParamsRef() map[string]any {
	return map[string]any{"apiGroup": "configuration.konghq.com", "kind": "IngressClassParameters",
		"name": "icp", "namespace": w.namespaces[0], "scope": "Namespace"}
}
