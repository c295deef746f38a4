package translator

import (
	"reflect"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

func TestCollapseSlashes(t *testing.T) {
	cases := map[string]string{
		"":               "",
		"/":              "/",
		"//":             "/",
		"/a//b///c/":     "/a/b/c/",
		"a//b":           "a/b",
		"/no/repeats":    "/no/repeats",
		"///~/x//[0-9]+": "/~/x/[0-9]+",
	}
	for in, want := range cases {
		if got := collapseSlashes(in); got != want {
			t.Errorf("collapseSlashes(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIngressPaths(t *testing.T) {
	const (
		prefix = networkingv1.PathTypePrefix
		exact  = networkingv1.PathTypeExact
		impl   = networkingv1.PathTypeImplementationSpecific
	)
	cases := []struct {
		path   string
		pt     networkingv1.PathType
		marker string
		want   []string
	}{
		{"/", prefix, "/~", []string{"/"}},
		{"/foo", prefix, "/~", []string{"/foo/", "~/foo$"}},
		{"/foo/", prefix, "/~", []string{"/foo/", "~/foo$"}},
		{"/foo", exact, "/~", []string{"~/foo$"}},
		{"/", exact, "/~", []string{"~/$"}},
		{"/a.b", exact, "/~", []string{"~/a.b$"}},
		{"/foo", impl, "/~", []string{"/foo"}},
		{"/~/v[0-9]+", impl, "/~", []string{"~/v[0-9]+"}},
		{"/#/v[0-9]+", impl, "/#", []string{"~/v[0-9]+"}},
		{"/~/v[0-9]+", impl, "/#", []string{"/~/v[0-9]+"}},
		{"/~/x", prefix, "/~", []string{"~/x/", "~/~/x$"}},
	}
	for _, c := range cases {
		got := ingressPaths(c.path, c.pt, c.marker, false, nil)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ingressPaths(%q, %s, %q) = %q, want %q", c.path, c.pt, c.marker, got, c.want)
		}
	}
}

func TestHostPort(t *testing.T) {
	cases := map[string]string{
		"10.0.0.1":        "10.0.0.1:80",
		"fd00::1":         "[fd00::1]:80",
		"::ffff:10.0.0.5": "[::ffff:10.0.0.5]:80",
		"pod.example.com": "pod.example.com:80",
	}
	for in, want := range cases {
		if got := hostPort(in, "80"); got != want {
			t.Errorf("hostPort(%q) = %q, want %q", in, got, want)
		}
	}
}
