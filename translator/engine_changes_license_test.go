package translator

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// licenseObjects are KongLicenses contending for the one license: enabled, disabled, empty.
func licenseObjects() []store.Object {
	at := func(m int) metav1.Time { return metav1.NewTime(time.Date(2025, 1, 1, 2, m, 0, 0, time.UTC)) }
	lic := func(name, payload string, m int, enabled *bool) *kva.KongLicense {
		return &kva.KongLicense{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(m),
			UID: types.UID("uid-" + name)}, RawLicenseString: &payload, Enabled: enabled}
	}
	off := false
	return []store.Object{lic("lic-a", `{"license":"a"}`, 1, nil), lic("lic-b", `{"license":"b"}`, 2, nil),
		lic("lic-off", `{"license":"off"}`, 3, &off), lic("lic-empty", "", 0, nil)}
}

// mutateLicense edits what decides which license is sent: enabled, payload, creation time.
func (w *world) mutateLicense(o *kva.KongLicense) string {
	switch w.r.IntN(3) {
	case 0:
		e := w.r.IntN(2) == 0
		o.Enabled = &e
		return fmt.Sprintf("enabled %v", e)
	case 1:
		p := pick(w.r, []string{"", `{"license":"x"}`, `{"license":"y"}`})
		o.RawLicenseString = &p
		return "payload changed"
	}
	return w.retime(&o.ObjectMeta, store.KindKongLicense)
}
