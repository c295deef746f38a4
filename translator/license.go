package translator

import (
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/kong/go-kong/kong"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The license family: KongLicenses → Kong Enterprise's licenses, as KIC v3.5.13 sends them
// (its KongLicense controller and translator): only to Kong Enterprise (Options.KongEnterprise),
// one license, that of the newest enabled KongLicense (creationTimestamp, then the lower name),
// with id the SHA-1 UUID of "KongLicense:<name>" and the payload, no tags. KIC reads licenses
// whatever their class. The payload is a secret: no problem quotes it.

// licenseMemos are what the license family keeps between builds.
type licenseMemos struct {
	licenses *memo[bool, []*kong.License] // keyed by whether Kong is Enterprise
}

// licenseBuild is the license family's view of a build, which assemble hands it.
type licenseBuild struct {
	*translation
	memos *licenseMemos
}

// licenses returns the licenses entity list: a piece of the whole KongLicense kind.
func (t *licenseBuild) licenses() []*kong.License {
	return piece(t.translation, t.memos.licenses, t.opts.KongEnterprise, t.buildLicenses)
}

// enabledLicenses lists the enabled KongLicenses, newest first (KIC's compareKongLicense).
func (t *licenseBuild) enabledLicenses() []*kva.KongLicense {
	var out []*kva.KongLicense
	for _, o := range t.snap.Objects(store.KindKongLicense) {
		if l, ok := o.(*kva.KongLicense); ok && l.IsEnabled() {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b *kva.KongLicense) int {
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			if b.CreationTimestamp.Before(&a.CreationTimestamp) {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func (t *licenseBuild) buildLicenses() []*kong.License {
	ls := t.enabledLicenses()
	if !t.opts.KongEnterprise {
		for _, l := range ls {
			t.problem(licenseRef(l), "", "Kong is not Kong Enterprise (its version names no Enterprise edition), "+
				"and only Kong Enterprise has licenses; KongLicense not sent, as KIC does not send it")
		}
		return nil
	}
	var chosen *kva.KongLicense
	for _, l := range ls {
		switch {
		case chosen != nil:
			t.problem(licenseRef(l), "", "KongLicense %s is newer (or as new, with a lower name); Kong "+
				"gets one license, so this one is not sent", chosen.Name)
		case l.Payload() == "":
			t.problem(licenseRef(l), "rawLicenseString", "empty; KongLicense skipped (Kong requires a payload)")
		default:
			chosen = l
		}
	}
	if chosen == nil {
		return nil
	}
	id, payload := licenseID(chosen.Name), chosen.Payload()
	return []*kong.License{{ID: &id, Payload: &payload}}
}

// LicenseID is the id of the license entity a KongLicense named name gives (status/ finds the
// license sent by it).
func LicenseID(name string) string { return licenseID(name) }

// licenseID is KIC's id of a KongLicense's license: the SHA-1 (version 5) UUID of
// "KongLicense:<name>" in the nil namespace.
func licenseID(name string) string {
	return uuid.NewSHA1(uuid.Nil, []byte("KongLicense:"+name)).String()
}

func licenseRef(l *kva.KongLicense) store.Ref {
	return store.Ref{Kind: store.KindKongLicense, Name: l.Name}
}
