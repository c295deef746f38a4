package sync

import (
	"fmt"
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// BenchmarkNewPayload measures encoding and hashing a config of 2,000 services with one route
// each: the per-build cost the loop adds on top of translation.
func BenchmarkNewPayload(b *testing.B) {
	doc := document.New()
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("default.svc-%04d.80", i)
		doc.Services = append(doc.Services, &document.Service{
			Service: kong.Service{Name: kong.String(name), Host: kong.String(name + ".svc"), Port: kong.Int(80),
				Tags: kong.StringSlice("k8s-name:svc", "k8s-namespace:default", "k8s-kind:Service", "k8s-version:v1")},
			Routes: []*document.Route{{Route: kong.Route{Name: kong.String(name + ".0"), Paths: kong.StringSlice("/" + name),
				Tags: kong.StringSlice("k8s-name:ing", "k8s-namespace:default", "k8s-kind:Ingress")}}},
		})
	}
	p, err := NewPayload(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(p.Config.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := NewPayload(doc); err != nil {
			b.Fatal(err)
		}
	}
}
