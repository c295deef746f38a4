package informer

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// kongResource is one Kong custom resource kind the translator reads.
type kongResource struct {
	gv         schema.GroupVersion
	resource   string
	kind       store.Kind
	namespaced bool
	newObj     func() store.Object
}

var kongResources = []kongResource{
	{configurationv1.SchemeGroupVersion, "kongconsumers", store.KindKongConsumer, true,
		func() store.Object { return &configurationv1.KongConsumer{} }},
	{configurationv1.SchemeGroupVersion, "kongplugins", store.KindKongPlugin, true,
		func() store.Object { return &configurationv1.KongPlugin{} }},
	{configurationv1.SchemeGroupVersion, "kongclusterplugins", store.KindKongClusterPlugin, false,
		func() store.Object { return &configurationv1.KongClusterPlugin{} }},
	{configurationv1beta1.SchemeGroupVersion, "kongupstreampolicies", store.KindKongUpstreamPolicy, true,
		func() store.Object { return &configurationv1beta1.KongUpstreamPolicy{} }},
}

// servedKongResources asks discovery which of kongResources the API server serves, as
// "group/version/resource" keys. A group version the server does not know serves none.
func servedKongResources(disc discovery.DiscoveryInterface) (map[string]bool, error) {
	served := map[string]bool{}
	asked := map[schema.GroupVersion]bool{}
	for _, kr := range kongResources {
		if asked[kr.gv] {
			continue
		}
		asked[kr.gv] = true
		list, err := disc.ServerResourcesForGroupVersion(kr.gv.String())
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("controller: discovering %s: %w", kr.gv, err)
		}
		for _, r := range list.APIResources {
			served[kr.gv.String()+"/"+r.Name] = true
		}
	}
	return served, nil
}

// watchKongCRDs adds dynamic informers for the Kong custom resources whose CRDs are installed
// (found through discovery when New runs; CRDs installed later need a restart). Their objects
// are converted to kongsync's own typed structs in the transform, so the store and the
// translator see the same types as the offline manifest reader produces.
func (c *Controller) watchKongCRDs(dyn dynamic.Interface, namespaces []string) error {
	served, err := servedKongResources(c.client.Discovery())
	if err != nil {
		return err
	}
	if len(served) == 0 {
		c.log.Info("Kong CRDs not installed; KongPlugins, KongClusterPlugins, KongConsumers and KongUpstreamPolicies are not watched")
		return nil
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
		if !served[kr.gv.String()+"/"+kr.resource] {
			c.log.Info("Kong CRD not installed; not watched", "resource", kr.resource, "version", kr.gv.Version)
			continue
		}
		gvr := kr.gv.WithResource(kr.resource)
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
