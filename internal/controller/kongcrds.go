package controller

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// kongResource is one Kong custom resource kind the translator reads.
type kongResource struct {
	resource   string
	kind       store.Kind
	namespaced bool
	newObj     func() store.Object
}

var kongResources = []kongResource{
	{"kongconsumers", store.KindKongConsumer, true, func() store.Object { return &configurationv1.KongConsumer{} }},
	{"kongplugins", store.KindKongPlugin, true, func() store.Object { return &configurationv1.KongPlugin{} }},
	{"kongclusterplugins", store.KindKongClusterPlugin, false, func() store.Object { return &configurationv1.KongClusterPlugin{} }},
}

// watchKongCRDs adds dynamic informers for the Kong custom resources whose CRDs are installed
// (found through discovery when New runs; CRDs installed later need a restart). Their objects
// are converted to kongsync's own typed structs in the transform, so the store and the
// translator see the same types as the offline manifest reader produces.
func (c *Controller) watchKongCRDs(dyn dynamic.Interface, namespaces []string) error {
	gv := configurationv1.SchemeGroupVersion
	list, err := c.client.Discovery().ServerResourcesForGroupVersion(gv.String())
	if apierrors.IsNotFound(err) {
		c.log.Info("Kong CRDs not installed; KongPlugins, KongClusterPlugins and KongConsumers are not watched")
		return nil
	}
	if err != nil {
		return fmt.Errorf("controller: discovering %s: %w", gv, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	cluster := dynamicinformer.NewDynamicSharedInformerFactory(dyn, c.opts.Resync)
	perNS := map[string]dynamicinformer.DynamicSharedInformerFactory{}
	for _, ns := range namespaces {
		if ns == "" {
			perNS[ns] = cluster
		} else {
			perNS[ns] = dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, c.opts.Resync, ns, nil)
		}
	}
	for _, kr := range kongResources {
		if !served[kr.resource] {
			c.log.Info("Kong CRD not installed; not watched", "resource", kr.resource)
			continue
		}
		gvr := gv.WithResource(kr.resource)
		factories := []dynamicinformer.DynamicSharedInformerFactory{cluster}
		if kr.namespaced {
			factories = factories[:0]
			for _, ns := range dedupe(namespaces) {
				factories = append(factories, perNS[ns])
			}
		}
		for _, f := range factories {
			if err := c.watch(f.ForResource(gvr).Informer(), kr.kind, typedTransform(kr)); err != nil {
				return err
			}
		}
	}
	c.dynFactories = append(c.dynFactories, cluster)
	for ns, f := range perNS {
		if ns != "" {
			c.dynFactories = append(c.dynFactories, f)
		}
	}
	return nil
}

// typedTransform converts an unstructured Kong resource into kongsync's typed struct (through
// JSON, which also handles the raw plugin config) and trims its metadata.
func typedTransform(kr kongResource) func(any) (any, error) {
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil
		}
		b, err := json.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		out := kr.newObj()
		if err := json.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", kr.kind, u.GetNamespace(), u.GetName(), err)
		}
		trimObjectMeta(out)
		return out, nil
	}
}

// trimObjectMeta is trimMeta through the metav1.Object interface.
func trimObjectMeta(o store.Object) {
	o.SetManagedFields(nil)
	o.SetOwnerReferences(nil)
	o.SetFinalizers(nil)
	if a := o.GetAnnotations(); a != nil {
		if _, ok := a[lastAppliedAnnotation]; ok {
			delete(a, lastAppliedAnnotation)
			o.SetAnnotations(a)
		}
	}
}
