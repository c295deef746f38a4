package metrics

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kongsync/kongsync/internal/safetext"
	"github.com/kongsync/kongsync/store"
)

// ReasonKindNotRead: the cluster serves a kind of KIC's that kongsync does not read
// (store.UnreadKinds); the Event is on the kind's CustomResourceDefinition.
const ReasonKindNotRead = "KongsyncKindNotRead"

// UnreadKinds makes the kinds of KIC's that the cluster serves and kongsync does not read
// heard: one log line and one Warning Event (on the CRD) when the CRD appears, at start
// included, and the gauge kongsync_unread_kinds{kind}: 1 while it is served, 0 after.
type UnreadKinds struct {
	gauge    *prometheus.GaugeVec
	reporter *Reporter
}

// NewUnreadKinds registers the gauge in p's registry; Events and logs go through r.
func NewUnreadKinds(p *Prometheus, r *Reporter) *UnreadKinds {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kongsync_unread_kinds",
		Help: "1 while the cluster serves this kind of KIC's, which kongsync does not read (its objects change nothing in Kong); 0 once its CRD is gone.",
	}, []string{"kind"})
	p.Registry.MustRegister(g)
	return &UnreadKinds{gauge: g, reporter: r}
}

// Changed is an informer.UnreadFunc: crd is the kind's CRD when it appeared, nil when it went.
func (u *UnreadKinds) Changed(k store.UnreadKind, crd metav1.Object) {
	if crd == nil {
		u.gauge.WithLabelValues(k.Kind).Set(0)
		u.reporter.log.Info("CRD of a kind kongsync does not read is gone", "kind", k.Kind, "crd", k.CRDName())
		return
	}
	u.gauge.WithLabelValues(k.Kind).Set(1)
	msg := safetext.Escape("the cluster serves " + k.Kind + " (" + k.CRDName() + "): " + k.Why)
	u.reporter.log.Info("kind of KIC's not read by kongsync", "kind", k.Kind, "crd", k.CRDName(), "why", k.Why)
	ref := &corev1.ObjectReference{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition",
		Name: crd.GetName(), UID: crd.GetUID(), ResourceVersion: crd.GetResourceVersion()}
	u.reporter.recorder.Event(ref, corev1.EventTypeWarning, ReasonKindNotRead, msg)
}
