package document

import (
	"encoding/json"
	"testing"
)

func TestReport(t *testing.T) {
	tests := []struct {
		name  string
		diffs []Difference
		want  string
	}{
		{"none", nil, `{"added":[],"removed":[],"changed":[]}`},
		{"added and removed", []Difference{{Op: "-", Entity: "service default.web.80"}, {Op: "+", Entity: "consumer stray"}},
			`{"added":[{"kind":"consumer","name":"stray"}],"removed":[{"kind":"service","name":"default.web.80"}],"changed":[]}`},
		{"fields of one entity grouped, another entity apart", []Difference{
			{Op: "~", Entity: "route r1", Field: "paths[0]", Expected: `"/"`, Actual: `"/other"`},
			{Op: "~", Entity: "route r1", Field: "strip_path", Expected: "true"},
			{Op: "~", Entity: "route r2", Field: "hosts", Actual: `["a"]`},
		}, `{"added":[],"removed":[],"changed":[` +
			`{"kind":"route","name":"r1","fields":[{"field":"paths[0]","expected":"\"/\"","actual":"\"/other\""},{"field":"strip_path","expected":"true"}]},` +
			`{"kind":"route","name":"r2","fields":[{"field":"hosts","actual":"[\"a\"]"}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Report(tt.diffs)
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
			if r.Empty() != (len(tt.diffs) == 0) {
				t.Errorf("Empty() = %v with %d differences", r.Empty(), len(tt.diffs))
			}
		})
	}
}
