package document

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

func TestServiceClientCertificateIsAnID(t *testing.T) {
	s := &Service{Service: kong.Service{Name: kong.String("a"), ClientCertificate: &kong.Certificate{ID: kong.String("c1")}},
		Routes: []*Route{{Route: kong.Route{Name: kong.String("r")}}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"a","routes":[{"name":"r"}],"client_certificate":"c1"}`
	if got := string(b); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	s.ClientCertificate = nil
	b, err = json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "client_certificate") || !strings.Contains(string(b), `"routes"`) {
		t.Errorf("unexpected encoding without certificate: %s", b)
	}
}
