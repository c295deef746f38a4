package document

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

// TestJSONCacheHashesWhileEncoding moves thousands of items at once, as a route moved into or
// out of a large tie does, so that the misses split into many chunks the hasher follows: the
// bytes and hash must be JSON's and Hash's. An item that fails or panics on a worker, among
// many misses or alone, fails the call with an error, and the cache goes on from the call
// before it.
func TestJSONCacheHashesWhileEncoding(t *testing.T) {
	c := NewJSONCache()
	d := bigDoc(3000)
	checkEncode(t, c, d, "cold")
	move := func(from, to, port int) {
		for i := from; i < to; i++ {
			s := *d.Services[i]
			s.Port = kong.Int(port)
			d.Services[i] = &s
		}
	}
	move(10, 2500, 81)
	if p := newMissPipe(&layoutPieces{}, make([]itemSlot, 2490), nil); len(p.done) < 4 {
		t.Fatalf("2,490 misses make %d chunks: the hasher follows nothing", len(p.done))
	}
	checkEncode(t, c, d, "2,490 services moved")
	move(0, 3000, 82)
	checkEncode(t, c, d, "every service moved")
	for _, bad := range []kong.Configuration{{"c": make(chan int)}, {"c": panicky{}}} {
		for _, at := range []int{5, 1500, 2999} {
			saved := d.Services[at]
			s := *saved
			s.Plugins = []*kong.Plugin{{Name: kong.String("x"), Config: bad}}
			d.Services[at] = &s
			if at != 1500 { // one miss alone (encoded before the hash) or all of them (followed)
				move(0, 3000, 83+at)
			}
			if _, err := c.EncodeConfig(d); err == nil {
				t.Fatalf("service %d cannot be encoded, but EncodeConfig succeeded", at)
			} else if _, isPanic := bad["c"].(panicky); isPanic && !strings.Contains(err.Error(), "panic") {
				t.Errorf("service %d panics: err %v, want the panic as an error", at, err)
			}
			d.Services[at] = saved
			move(at, at+1, 83+at)
			checkEncode(t, c, d, fmt.Sprintf("after service %d failed", at))
		}
	}
}
