package discovery

import (
	"reflect"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

func ptr[T any](v T) *T { return &v }

func TestURLs(t *testing.T) {
	ports := []discoveryv1.EndpointPort{
		{Name: ptr("proxy"), Port: ptr(int32(8000))},
		{Name: ptr("kong-admin-tls"), Port: ptr(int32(8444))},
		{Name: ptr("admin"), Port: ptr(int32(8001))},
	}
	slice := func(eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{Ports: ports, Endpoints: eps}
	}
	ep := func(addr string, ready, terminating *bool) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: ready, Terminating: terminating}}
	}
	tests := []struct {
		name   string
		slices []*discoveryv1.EndpointSlice
		names  []string
		want   []string
	}{
		{"default names pick the tls port", []*discoveryv1.EndpointSlice{slice(ep("10.0.0.2", nil, nil))}, DefaultPortNames,
			[]string{"https://10.0.0.2:8444"}},
		{"plain admin port", []*discoveryv1.EndpointSlice{slice(ep("10.0.0.2", ptr(true), nil))}, []string{"admin"},
			[]string{"http://10.0.0.2:8001"}},
		{"not ready and terminating skipped", []*discoveryv1.EndpointSlice{slice(
			ep("10.0.0.3", ptr(false), nil), ep("10.0.0.4", ptr(true), ptr(true)), ep("10.0.0.5", nil, ptr(false)))},
			[]string{"admin"}, []string{"http://10.0.0.5:8001"}},
		{"ipv6, sorted, deduplicated across slices", []*discoveryv1.EndpointSlice{
			slice(ep("fd00::2", nil, nil), ep("10.0.0.9", nil, nil)), slice(ep("10.0.0.9", nil, nil))},
			[]string{"admin"}, []string{"http://10.0.0.9:8001", "http://[fd00::2]:8001"}},
		{"no matching port", []*discoveryv1.EndpointSlice{slice(ep("10.0.0.2", nil, nil))}, []string{"nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URLs(tt.slices, tt.names); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("URLs = %v, want %v", got, tt.want)
			}
		})
	}
}
