package status

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/store"
)

// patchStatus merges {"metadata": {"resourceVersion": rv}, "status": fields} into the status
// subresource of the object ref names (of group gk.Group) and returns the new resourceVersion:
// a newer object makes it fail with a conflict, and that object's translation follows.
func patchStatus(ctx context.Context, dyn dynamic.Interface, mapper Mapper, group string, ref store.Ref, rv string, fields map[string]any) (string, error) {
	m, err := mapper.RESTMapping(schema.GroupKind{Group: group, Kind: string(ref.Kind)})
	if err != nil {
		if meta.IsNoMatchError(err) {
			resetMapper(mapper)
		}
		return "", fmt.Errorf("%s: %w", ref.Kind, err)
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": rv}, "status": fields})
	if err != nil {
		return "", err
	}
	var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = dyn.Resource(m.Resource).Namespace(ref.Namespace)
	}
	u, err := ri.Patch(ctx, ref.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: "kongsync"}, "status")
	if err != nil {
		return "", err
	}
	return u.GetResourceVersion(), nil
}

// resetMapper makes a discovery mapper ask the API server again: a CRD may have been installed,
// or its served versions changed.
func resetMapper(mapper Mapper) {
	if rm, ok := mapper.(meta.ResettableRESTMapper); ok {
		rm.Reset()
	}
}

// runPasses is a writer's loop: a pass now, then one on every kick, every resync and after a
// pass's requested retry delay (a pass with failed writes returns its backoff), until ctx ends.
func runPasses(ctx context.Context, resync time.Duration, kick <-chan struct{}, pass func(context.Context) time.Duration) {
	t := time.NewTicker(resync)
	defer t.Stop()
	retry := time.NewTimer(time.Hour)
	retry.Stop() // armed after a pass with failed writes
	defer retry.Stop()
	for {
		if d := pass(ctx); d > 0 {
			retry.Reset(d)
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-t.C:
		case <-retry.C:
		}
	}
}
