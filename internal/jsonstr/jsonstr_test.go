package jsonstr

import (
	"encoding/json"
	"testing"
)

func TestAppendRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "line\nfeed\r\ttab", "\x00\x01\x1f\x7f", "héllo <&> ☃", "-----BEGIN KEY-----\nabc\n"} {
		var got string
		enc := Append([]byte("x"), s)
		if enc[0] != 'x' {
			t.Fatalf("prefix lost: %q", enc)
		}
		if err := json.Unmarshal(enc[1:], &got); err != nil || got != s {
			t.Errorf("Append(%q) = %s, decodes to %q (%v)", s, enc[1:], got, err)
		}
		if b := Append(nil, []byte(s)); string(b) != string(enc[1:]) {
			t.Errorf("string and []byte forms differ: %s vs %s", b, enc[1:])
		}
	}
	if got := string(Append(nil, "a\"\n\x01")); got != `"a\"\n\u0001"` {
		t.Errorf("escapes = %s", got)
	}
}
