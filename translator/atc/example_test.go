package atc_test

import (
	"fmt"

	"github.com/kongsync/kongsync/translator/atc"
)

// A prefix path match as KIC writes it for an HTTPRoute, with a hostname and a header.
func Example() {
	path := atc.Or(
		atc.Predicate{Field: atc.FieldHTTPPath, Op: atc.OpEqual, Value: atc.StringValue("/echo")},
		atc.Predicate{Field: atc.FieldHTTPPath, Op: atc.OpPrefixMatch, Value: atc.StringValue("/echo/")},
	)
	m := atc.And(
		path,
		atc.Predicate{Field: atc.FieldHTTPHost, Op: atc.OpEqual, Value: atc.StringValue("example.com")},
		atc.Predicate{Field: atc.HeaderField("X-Env"), Op: atc.OpRegexMatch, Value: atc.StringValue(`^(dev|"qa")$`)},
	)
	fmt.Println(m.Expression())
	back, err := atc.Parse(m.Expression())
	fmt.Println(err, atc.Check(back), back.Expression() == m.Expression())
	// Output:
	// ((http.path == "/echo") || (http.path ^= "/echo/")) && (http.host == "example.com") && (http.headers.x_env ~ "^(dev|\"qa\")$")
	// <nil> <nil> true
}
