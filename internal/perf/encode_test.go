package perf_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/workload"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// TestYAMLOfWorkloadEqualsSingleEncode checks document.YAML against its definition (one yaml.v3
// encoder over the JSON tree) on a translated workload with TLS certificates.
func TestYAMLOfWorkloadEqualsSingleEncode(t *testing.T) {
	c := workload.Defaults(300)
	c.TLSSecrets, c.Namespaces = 40, 3
	objs := workloadObjects(t, c)
	st, _ := store.Load(objs)
	doc := mustBuild(t, st.Snapshot(), translator.DefaultOptions()).Document
	if len(doc.Services) != 300 || len(doc.Certificates) != 40 {
		t.Fatalf("%d services, %d certificates", len(doc.Services), len(doc.Certificates))
	}
	got, err := document.YAML(doc)
	if err != nil {
		t.Fatal(err)
	}
	js, err := document.JSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(js, &tree); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := yaml.NewEncoder(&want)
	enc.SetIndent(2)
	if err := enc.Encode(tree); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	if !bytes.Equal(got, want.Bytes()) {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("YAML differs at byte %d:\n got %q\nwant %q", i, got[max(0, i-80):min(len(got), i+80)], want.Bytes()[max(0, i-80):min(want.Len(), i+80)])
	}
}
