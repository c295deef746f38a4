package store

import (
	"slices"
	"sync"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metaCache remembers the label keys, label values and annotation keys apimachinery's
// validation already accepted during one read: manifests repeat them (every object of a
// generated workload has the same label keys), and their regular expressions were most of the
// checks' cost. Only accepted entries are kept, so every refusal is worded afresh. Safe for the
// parallel decoders.
type metaCache struct{ ok sync.Map }

const (
	cacheLabelKey = iota
	cacheLabelValue
	cacheAnnotationKey
)

type cacheKey struct {
	what int
	s    string
}

// valid reports whether s passes, asking validate (apimachinery) only the first time it passes.
func (c *metaCache) valid(what int, s string, validate func() field.ErrorList) field.ErrorList {
	if c != nil {
		if _, ok := c.ok.Load(cacheKey{what, s}); ok {
			return nil
		}
	}
	errs := validate()
	if len(errs) == 0 && c != nil {
		c.ok.Store(cacheKey{what, s}, struct{}{})
	}
	return errs
}

// validateMeta is apimachinery's ValidateObjectMetaAccessor: the labels and annotations, key by
// key (so that each error names its key, "metadata.labels[key]"), through the cache, with the
// annotations' total size (TotalAnnotationSizeLimitB, 256 KiB); the rest of the metadata
// (name by the kind's rule, namespace, owner references, finalizers, …) as is.
func validateMeta(obj Object, namespaced bool, nameFn apivalidation.ValidateNameFunc, cache *metaCache) field.ErrorList {
	meta := metav1.ObjectMeta{Name: obj.GetName(), GenerateName: obj.GetGenerateName(), Namespace: obj.GetNamespace(),
		Generation: obj.GetGeneration(), OwnerReferences: obj.GetOwnerReferences(), Finalizers: obj.GetFinalizers(),
		ManagedFields: obj.GetManagedFields()}
	mp := field.NewPath("metadata")
	errs := apivalidation.ValidateObjectMetaAccessor(&meta, namespaced, nameFn, mp)
	labels := obj.GetLabels()
	for _, k := range sortedKeys(labels) {
		p := mp.Child("labels").Key(k)
		errs = append(errs, cache.valid(cacheLabelKey, k, func() field.ErrorList { return metav1validation.ValidateLabelName(k, p) })...)
		v := labels[k]
		errs = append(errs, cache.valid(cacheLabelValue, v, func() field.ErrorList {
			var out field.ErrorList
			for _, m := range validation.IsValidLabelValue(v) {
				out = append(out, field.Invalid(p, v, m))
			}
			return out
		})...)
	}
	annotations := obj.GetAnnotations()
	for _, k := range sortedKeys(annotations) {
		errs = append(errs, cache.valid(cacheAnnotationKey, k, func() field.ErrorList {
			return apivalidation.ValidateAnnotations(map[string]string{k: ""}, mp.Child("annotations").Key(k))
		})...)
	}
	if apivalidation.ValidateAnnotationsSize(annotations) != nil {
		errs = append(errs, field.TooLong(mp.Child("annotations"), "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
