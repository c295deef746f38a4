package translator

import (
	"fmt"

	"github.com/blang/semver/v4"
	"github.com/kong/go-kong/kong"
)

// Kong versions that matter to translation (KIC v3.5.13's internal/versions).
var (
	// MinKongVersion is the oldest Kong Gateway KIC v3 works with (KICv3VersionCutoff): KIC
	// refuses to start against an older one, and so does kongsync.
	MinKongVersion = semver.Version{Major: 3, Minor: 4, Patch: 1}
	// DefaultKongVersion is the Kong version translated for when none is known: `kongsync dump`'s
	// --kong-version default, the version the Kong test double reports and the one KIC's own
	// golden tests translate for.
	DefaultKongVersion = semver.Version{Major: 3, Minor: 9, Patch: 1}
)

// Gate is a feature Kong has only from a version on. A gated feature is translated only when
// Options.KongVersion is at least Since; otherwise KIC's older translation is used, or the
// feature is left out with a problem, as KIC does, rather than sent for Kong to refuse.
type Gate struct {
	// Feature names what the gate enables, as problems and docs say it.
	Feature string
	// Since is the first Kong version that has it.
	Since semver.Version
}

// The gates KIC v3.5.13 applies (docs/translation.md, "Kong versions").
var (
	// GateRedirectPlugin: HTTPRoute RequestRedirect filters become Kong's redirect plugin
	// (KongRedirectPluginCutoff; KIC's SupportRedirectPlugin feature flag, set in
	// internal/manager/run.go from the version); before, request-termination plus a
	// response-transformer adding Location.
	GateRedirectPlugin = Gate{Feature: "the redirect plugin", Since: semver.Version{Major: 3, Minor: 9}}
	// GateStickySessions: KongUpstreamPolicy algorithm sticky-sessions (KongStickySessionsCutoff,
	// checked in kongstate.FillUpstreamOverrides); before, the policy is not applied at all and
	// the Services that name it get a problem.
	GateStickySessions = Gate{Feature: "the sticky-sessions load-balancing algorithm", Since: semver.Version{Major: 3, Minor: 11}}
)

// Gates lists every gate, oldest first.
func Gates() []Gate { return []Gate{GateRedirectPlugin, GateStickySessions} }

// Has reports whether Kong version v has g's feature.
func (g Gate) Has(v semver.Version) bool { return v.GTE(g.Since) }

// ParseKongVersion reads a version as Kong reports it in GET / ("3.9.1",
// "3.10.0.1-enterprise-edition", "3.4") or as a user writes it, keeping major, minor and patch
// as KIC does (an Enterprise build number, pre-release and build metadata are dropped). A
// version older than MinKongVersion is an error: KIC v3 does not work with it.
func ParseKongVersion(s string) (semver.Version, error) {
	kv, err := kong.ParseSemanticVersion(s)
	if err != nil {
		return semver.Version{}, fmt.Errorf("invalid Kong version %q: want MAJOR.MINOR[.PATCH], e.g. %s", s, DefaultKongVersion)
	}
	v := semver.Version{Major: kv.Major(), Minor: kv.Minor(), Patch: kv.Patch()}
	if v.LT(MinKongVersion) {
		return semver.Version{}, fmt.Errorf("Kong %s is not supported: KIC v3 (and kongsync) need Kong %s or later", v, MinKongVersion)
	}
	return v, nil
}

// kongVersionOrDefault is v, or DefaultKongVersion when v is unset (the zero version).
func kongVersionOrDefault(v semver.Version) semver.Version {
	if v.EQ(semver.Version{}) {
		return DefaultKongVersion
	}
	return semver.Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch}
}

// IsKongEnterprise reports whether a version Kong reports in GET / is Kong Enterprise's, as KIC
// decides it (go-kong's IsKongGatewayEnterprise, KIC's EnterpriseEdition): a four-part version
// ("3.9.1.0") or one that says "enterprise" ("3.10.0.1-enterprise-edition"). A version that
// cannot be read is not.
func IsKongEnterprise(s string) bool {
	kv, err := kong.ParseSemanticVersion(s)
	return err == nil && kv.IsKongGatewayEnterprise()
}
