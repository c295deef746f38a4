package translator

import (
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/store"
)

// configMapObjects are the CA certificate ConfigMaps of golden case ca-configmaps, always in the
// pool: valid, expired, contending for ids with Secrets and across namespaces.
func (w *world) configMapObjects() []store.Object {
	var out []store.Object
	for _, o := range loadObjects(w.t, filepath.Join(goldenDir, "ca-configmaps")) {
		if _, ok := o.(*corev1.ConfigMap); ok {
			out = append(out, o)
		}
	}
	return out
}

// mutateConfigMap edits what decides a CA certificate ConfigMap: its label, its id (taking
// another's), its certificate (swapped with another's, or broken), its creation time.
func (w *world) mutateConfigMap(o *corev1.ConfigMap) string {
	switch w.r.IntN(4) {
	case 0:
		v := pick(w.r, []string{"true", "false", ""})
		o.Labels = map[string]string{caCertLabel: v}
		return fmt.Sprintf("label %q", v)
	case 1:
		o.Data = map[string]string{"id": pick(w.r, []string{"0b8e6f4a-1b2c-4d3e-8f9a-0b1c2d3e4f01",
			"0b8e6f4a-1b2c-4d3e-8f9a-0b1c2d3e4f03", "0b8e6f4a-1b2c-4d3e-8f9a-0b1c2d3e4f06", "x"}),
			"ca.crt": o.Data["ca.crt"], "cert": o.Data["cert"]}
		return "id " + o.Data["id"]
	case 2:
		var certs []string
		for _, ref := range w.known[store.KindConfigMap] {
			if c, ok := w.last[ref].(*corev1.ConfigMap); ok && c.Data["ca.crt"] != "" {
				certs = append(certs, c.Data["ca.crt"])
			}
		}
		certs = append(certs, "not a PEM")
		d := map[string]string{"ca.crt": pick(w.r, certs)}
		if id, ok := o.Data["id"]; ok {
			d["id"] = id
		}
		o.Data = d
		return "certificate swapped"
	}
	return w.retime(&o.ObjectMeta, store.KindConfigMap)
}
