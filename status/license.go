package status

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// KongLicense status, as KIC v3.5.13's KongLicense controller writes it: an entry in
// status.controllers named "konghq.com/kong-ingress-controller/<election id>" whose Programmed
// condition is True/PickedAsLatest on the license in use and False/ReplacedByNewer on the
// older ones. kongsync writes them from the configuration every Kong holds: the license it
// sent is PickedAsLatest, every other enabled license older than it ReplacedByNewer, and one it
// could not send False/Invalid with KIC's message (Kong is not Enterprise, or the license is
// newer but has no payload: its problem, an Event, says which).
const (
	licenseControllerType   = "konghq.com/kong-ingress-controller"
	reasonPickedAsLatest    = "PickedAsLatest"
	reasonReplacedByNewer   = "ReplacedByNewer"
	messageReplacedByNewer  = "Replaced by newer created KongLicense"
	maxLicenseControllerLen = 8 // the CRD's limit on status.controllers
)

// licenseCondition is the Programmed condition of an enabled license, given the one sent (nil:
// none).
func licenseCondition(l, sent *kva.KongLicense) metav1.Condition {
	switch {
	case sent != nil && l.Name == sent.Name:
		return metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionTrue, Reason: reasonPickedAsLatest}
	case sent != nil && licenseNewer(sent, l):
		return metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionFalse, Reason: reasonReplacedByNewer,
			Message: messageReplacedByNewer}
	}
	return metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionFalse, Reason: ReasonInvalid, Message: MessageInvalid}
}

// licenseNewer is KIC's order of licenses: a newer creationTimestamp, then the lower name.
func licenseNewer(a, b *kva.KongLicense) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}

// licenseControllers is status.controllers with our entry's Programmed condition set to c
// (transition time kept while its status stays), and whether it changed.
func licenseControllers(cur []kva.KongLicenseControllerStatus, name string, c metav1.Condition,
	now metav1.Time) ([]kva.KongLicenseControllerStatus, bool) {
	out := make([]kva.KongLicenseControllerStatus, len(cur), len(cur)+1)
	copy(out, cur)
	i := -1
	for j := range out {
		if out[j].ControllerName == name {
			i = j
		}
	}
	if i < 0 {
		if len(out) >= maxLicenseControllerLen {
			return cur, false
		}
		out = append(out, kva.KongLicenseControllerStatus{ControllerName: name})
		i = len(out) - 1
	}
	conds := mergeConditions(out[i].Conditions, []metav1.Condition{c}, now)
	changed := !equalConditions(out[i].Conditions, conds)
	out[i].Conditions = conds
	return out, changed
}

// licenses writes the KongLicenses' statuses from the configuration p, which every Kong holds.
func (w *ProgrammedWriter) licenses(ctx context.Context, pp *progPass, p *kongsync.Published) {
	objs := p.Snapshot.Objects(store.KindKongLicense)
	if len(objs) == 0 || p.Result.Document == nil {
		return
	}
	var sent *kva.KongLicense
	for _, o := range objs {
		l := o.(*kva.KongLicense)
		for _, e := range p.Result.Document.Licenses {
			if e.ID != nil && *e.ID == translator.LicenseID(l.Name) {
				sent = l
			}
		}
	}
	name := licenseControllerType
	if w.opts.ElectionID != "" {
		name += "/" + w.opts.ElectionID
	}
	for _, o := range objs {
		l := o.(*kva.KongLicense)
		if !l.IsEnabled() {
			continue // KIC's controller filters disabled licenses out
		}
		pp.sum.Checked++
		out, changed := licenseControllers(l.Status.Controllers, name, licenseCondition(l, sent), pp.now)
		if changed {
			w.apply(ctx, pp, store.Ref{Kind: store.KindKongLicense, Name: l.Name}, l, map[string]any{"controllers": out})
		}
	}
}
