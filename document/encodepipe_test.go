package document

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"
)

// TestEncodeConfigHashesWhileEncoding checks the pipelined cold encoding on a document large
// enough that each list splits into several runs of several pieces: the bytes are
// encoding/json's of the whole document, the hash is Hash of them, and an item that cannot be
// encoded fails the call (after every worker stopped) instead of leaving the hasher waiting.
func TestEncodeConfigHashesWhileEncoding(t *testing.T) {
	d := bigDoc(20000)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	js := appendYAMLSafe(nil, bytes.TrimSuffix(want.Bytes(), []byte("\n")))
	cfg, err := EncodeConfig(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Pieces()) < 2*runsPerWorker {
		t.Fatalf("%d pieces: the lists did not split", len(cfg.Pieces()))
	}
	if !bytes.Equal(cfg.Bytes(), js) || cfg.Len() != len(js) {
		t.Fatal("EncodeConfig differs from encoding/json's encoding of the whole document")
	}
	if cfg.Hash() != Hash(js) {
		t.Fatalf("hash %s, want %s", cfg.Hash(), Hash(js))
	}
	for _, at := range []int{0, 10000, 19999} {
		bad := *d.Services[at]
		bad.Plugins = []*kong.Plugin{{Name: kong.String("x"), Config: kong.Configuration{"c": make(chan int)}}}
		saved := d.Services[at]
		d.Services[at] = &bad
		if _, err := EncodeConfig(d); err == nil {
			t.Errorf("service %d cannot be encoded, but EncodeConfig succeeded", at)
		}
		if _, err := JSON(d); err == nil {
			t.Errorf("service %d cannot be encoded, but JSON succeeded", at)
		}
		d.Services[at] = saved
	}
	saved := d.Services[15000]
	bad := *saved
	bad.Plugins = []*kong.Plugin{{Name: kong.String("x"), Config: kong.Configuration{"c": panicky{}}}}
	d.Services[15000] = &bad
	if _, err := EncodeConfig(d); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("an item panicking on a worker: err %v, want the panic as an error", err)
	}
	d.Services[15000] = saved
}

// panicky panics when encoded: a worker goroutine must not take the process down with it.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("boom") }

// TestYAMLPiecesPanicIsAnError: the YAML stream encodes its items on worker goroutines too; an
// item panicking there fails the call instead of ending the process.
func TestYAMLPiecesPanicIsAnError(t *testing.T) {
	d := bigDoc(2000)
	bad := *d.Services[1500]
	bad.Plugins = []*kong.Plugin{{Name: kong.String("x"), Config: kong.Configuration{"c": panicky{}}}}
	d.Services[1500] = &bad
	if _, _, err := YAMLPieces(d); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("an item panicking on a worker: err %v, want the panic as an error", err)
	}
}
