package translator

import (
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kongsync/kongsync/store"
)

// TestTranslateDoesNotMutateInputs checks that translation leaves every object as it found it:
// snapshots share objects with the store and with each other.
func TestTranslateDoesNotMutateInputs(t *testing.T) {
	for _, dir := range goldenCases(t) {
		objs := loadObjects(t, dir)
		before := make([]runtime.Object, len(objs))
		for i, o := range objs {
			before[i] = o.DeepCopyObject()
		}
		translateObjects(t, objs)
		for i, o := range objs {
			if !reflect.DeepEqual(before[i], runtime.Object(o)) {
				ref, _ := store.RefOf(o)
				t.Errorf("%s: translation modified %s", filepath.Base(dir), ref)
			}
		}
	}
}
