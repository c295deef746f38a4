package store

import "testing"

// TestUnreadKindsAreNotRead: a kind that gains a store Kind (and so is translated) must leave
// UnreadKinds, or kongsync would report as ignored a kind it reads.
func TestUnreadKindsAreNotRead(t *testing.T) {
	read := map[string]bool{}
	for _, k := range Kinds {
		read[string(k)] = true
	}
	for _, alpha := range []bool{false, true} {
		for _, u := range UnreadKinds(alpha) {
			if read[u.Kind] && !isGatewayAlpha(u.Kind) {
				t.Errorf("%s is a store kind but listed as not read", u.Kind)
			}
		}
	}
}

func isGatewayAlpha(kind string) bool {
	for _, k := range GatewayAlphaKinds() {
		if string(k) == kind {
			return true
		}
	}
	return false
}
