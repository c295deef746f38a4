package main

import (
	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/translator"
)

// kongVersionUsage is --kong-version's help, for dump and diff.
var kongVersionUsage = "Kong Gateway `version` to translate for, as Kong reports it in GET / (e.g. 3.11.0, " +
	"3.10.0.1-enterprise-edition; " + translator.MinKongVersion.String() + " or later): a feature that version lacks " +
	"is translated as KIC does for it, or left out with a problem (docs/translation.md, \"Kong versions\"); " +
	"an Enterprise version (four parts, or naming enterprise) translates KongLicenses, as KIC does for Kong Enterprise. " +
	"The default is the version the integration tests' Kong double reports"

// kongVersionFlag is --kong-version: it parses as translator.ParseKongVersion does, so that an
// invalid or unsupported version is refused with the reason, and records that it was given.
type kongVersionFlag struct {
	v   *semver.Version
	set bool
	// enterprise is set to whether the version names Kong Enterprise (translator.IsKongEnterprise,
	// as KIC decides it): only then are KongLicenses translated.
	enterprise *bool
	// fromKong: unset means the version Kong reports (diff), so no default is shown.
	fromKong bool
}

func (f *kongVersionFlag) String() string {
	if f == nil || f.v == nil || f.fromKong && !f.set {
		return ""
	}
	return f.v.String()
}

func (f *kongVersionFlag) Set(s string) error {
	v, err := translator.ParseKongVersion(s)
	if err != nil {
		return err
	}
	*f.v, f.set = v, true
	if f.enterprise != nil {
		*f.enterprise = translator.IsKongEnterprise(s)
	}
	return nil
}
