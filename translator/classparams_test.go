package translator

import (
	"regexp"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	icp "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
)

// KIC's cases (TestMaybePrependRegexPrefix) and a few more, through ingressPaths: the marker
// first, then the legacy heuristic.
func TestLegacyRegexDetection(t *testing.T) {
	is, prefix, exact := networkingv1.PathTypeImplementationSpecific, networkingv1.PathTypePrefix, networkingv1.PathTypeExact
	for _, c := range []struct {
		path   string
		pt     networkingv1.PathType
		marker string
		legacy bool
		want   []string
	}{
		{"/~/v1/api/packages", is, "/~", false, []string{"~/v1/api/packages"}},
		{"/v1/api/packages", is, "/~", false, []string{"/v1/api/packages"}},
		{"##/v1/api/packages", is, "##", false, []string{"~/v1/api/packages"}},
		{"/v1/api/packages", is, "##", true, []string{"/v1/api/packages"}},
		{`/v1/api/resource/\d+/`, is, "/~", true, []string{`~/v1/api/resource/\d+/`}},
		{`/v1/api/resource/\d+/`, is, "/~", false, []string{`/v1/api/resource/\d+/`}},
		{"/~/already(regex)", is, "/~", true, []string{"~/already(regex)"}},
		{"/plain-path_1.0/~x%2F", is, "/~", true, []string{"/plain-path_1.0/~x%2F"}},
		{"/a+b", prefix, "/~", true, []string{"~/a+b/", "~/a+b$"}},
		{"/a b", exact, "/~", true, []string{"~/a b$"}},
		{"/ok", prefix, "/~", true, []string{"/ok/", "~/ok$"}},
	} {
		got := ingressPaths(c.path, c.pt, c.marker, c.legacy, nil)
		if len(got) != len(c.want) {
			t.Errorf("%q %s legacy=%v: got %q, want %q", c.path, c.pt, c.legacy, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q %s legacy=%v: got %q, want %q", c.path, c.pt, c.legacy, got, c.want)
			}
		}
	}
}

// legacySensitive must be true for every Ingress whose paths the heuristic changes: pieces of
// the others do not read the class parameters.
func TestLegacySensitiveCoversEveryChange(t *testing.T) {
	paths := []string{"/", "/a", "/a/b.c", "/~/x(y)", "/~x", "/a+b", "/a b", "/%41", "/v1:list", "/x$", "/[0-9]", "/é", `/\d`}
	types := []networkingv1.PathType{networkingv1.PathTypeImplementationSpecific, networkingv1.PathTypePrefix, networkingv1.PathTypeExact}
	for _, p := range paths {
		ing := &networkingv1.Ingress{Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: p}}}}}}}}
		for _, pt := range types {
			off := ingressPaths(p, pt, defaultRegexMarker, false, nil)
			on := ingressPaths(p, pt, defaultRegexMarker, true, nil)
			changed := false
			for i := range off {
				changed = changed || off[i] != on[i]
			}
			if changed && !legacySensitive(ing) {
				t.Errorf("%q (%s) changes under legacy detection (%q → %q) but is not legacySensitive", p, pt, off, on)
			}
		}
	}
}

func TestParamsRef(t *testing.T) {
	group, other, kind, ns, scope := icp.SchemeGroupVersion.Group, "example.com", icp.IngressClassParametersKind, "kong", "Namespace"
	ref := func(g *string, k string, n, s *string) *networkingv1.IngressClassParametersReference {
		return &networkingv1.IngressClassParametersReference{APIGroup: g, Kind: k, Name: "p", Namespace: n, Scope: s}
	}
	for _, c := range []struct {
		name     string
		params   *networkingv1.IngressClassParametersReference
		ns, ref  string
		wantFail bool
	}{
		{"none", nil, "", "", false},
		{"good", ref(&group, kind, &ns, &scope), "kong", "p", false},
		{"no group", ref(nil, kind, &ns, &scope), "", "", true},
		{"other group", ref(&other, kind, &ns, &scope), "", "", true},
		{"other kind", ref(&group, "ConfigMap", &ns, &scope), "", "", true},
		{"cluster scope", ref(&group, kind, nil, nil), "", "", true},
		{"no namespace", ref(&group, kind, nil, &scope), "", "", true},
	} {
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kong"}, Spec: networkingv1.IngressClassSpec{Parameters: c.params}}
		gotNS, gotName, reason := paramsRef(ic)
		if gotNS != c.ns || gotName != c.ref || (reason != "") != c.wantFail {
			t.Errorf("%s: got %q %q %q", c.name, gotNS, gotName, reason)
		}
	}
}

// TestLegacyPlainPath checks the regexp-free test against the expression it stands for, on
// every byte alone and inside plain paths.
func TestLegacyPlainPath(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9.\-_~/%]*$`)
	for c := 0; c < 256; c++ {
		for _, p := range []string{string([]byte{byte(c)}), "/a/" + string([]byte{byte(c)}) + "/b", ""} {
			if got, want := legacyPlainPath(p), re.MatchString(p); got != want {
				t.Errorf("legacyPlainPath(%q) = %v, the expression says %v", p, got, want)
			}
		}
	}
}
