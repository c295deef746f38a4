package translator

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/kongsync/kongsync/store"
)

// TestPanicStartsOver: a build that panics part way (here in the clock, which every build
// reads) may leave the memos half updated; the Engine must drop them, so that the next build is
// a cold one and returns what BuildOnce does, not a mix of two snapshots.
func TestPanicStartsOver(t *testing.T) {
	objs := loadObjects(t, filepath.Join("..", "testdata", "golden", "ca-certificates"))
	boom := false
	opts := DefaultOptions()
	opts.Now = func() time.Time {
		if boom {
			panic("boom")
		}
		return time.Unix(1700000000, 0)
	}
	st := store.New()
	for _, o := range objs {
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	e := NewEngine(opts)
	if _, err := e.Build(st.Snapshot()); err != nil {
		t.Fatal(err)
	}
	kept := e.memos
	boom = true
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the build did not panic")
			}
		}()
		_, _ = e.Build(st.Snapshot())
	}()
	if e.memos == kept {
		t.Fatal("the memos of the build that panicked were kept")
	}
	boom = false
	got, err := e.Build(st.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	want, err := BuildOnce(st.Snapshot(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Config.Bytes(), want.Config.Bytes()) || got.Hash() != want.Hash() {
		t.Fatal("the build after a panic differs from a cold one")
	}
}
