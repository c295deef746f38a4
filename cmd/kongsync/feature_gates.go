package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kongsync/kongsync/translator"
)

// kicFeatureGates are KIC v3.5.13's feature gates and defaults (pkg/manager/config
// feature_gates_keys.go). An unknown name is an error, as in KIC.
var kicFeatureGates = map[string]bool{
	"GatewayAlpha":               false,
	"FillIDs":                    true,
	"RewriteURIs":                false,
	"KongServiceFacade":          false,
	"SanitizeKonnectConfigDumps": true,
	"FallbackConfiguration":      false,
	"KongCustomEntity":           true,
}

// featureGates is the --feature-gates value: KIC's gates with their defaults, overridden by
// "A=true,B=false" (k8s.io/component-base's mapStringBool format, which KIC uses). Each Set
// starts again from the defaults, as in KIC.
type featureGates map[string]bool

func newFeatureGates() featureGates {
	fg := featureGates{}
	for k, v := range kicFeatureGates {
		fg[k] = v
	}
	return fg
}

func (fg featureGates) Set(value string) error {
	next := newFeatureGates()
	for _, s := range strings.Split(value, ",") {
		if len(s) == 0 {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("malformed pair %q, expect string=bool", s)
		}
		k = strings.TrimSpace(k)
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("invalid value of %s: %s, err: %v", k, v, err)
		}
		if _, known := kicFeatureGates[k]; !known {
			return fmt.Errorf("%s is not a valid feature (KIC v3.5.13's: %s)", k, strings.Join(sortedKeys(kicFeatureGates), ", "))
		}
		next[k] = b
	}
	if next["KongCustomEntity"] && !next["FillIDs"] {
		return fmt.Errorf("FillIDs is required if KongCustomEntity is enabled")
	}
	for k, v := range next {
		fg[k] = v
	}
	return nil
}

// String lists the gates that differ from KIC's defaults ("" when none): pflag compares it with
// the default to tell a changed value.
func (fg featureGates) String() string {
	var out []string
	for _, k := range sortedKeys(map[string]bool(fg)) {
		if fg[k] != kicFeatureGates[k] {
			out = append(out, k+"="+strconv.FormatBool(fg[k]))
		}
	}
	return strings.Join(out, ",")
}

// Type is KIC's type name for the flag.
func (featureGates) Type() string { return "mapStringBool" }

// changed lists the gates set to a value other than KIC's default, sorted.
func (fg featureGates) changed() []string {
	var out []string
	for _, k := range sortedKeys(map[string]bool(fg)) {
		if fg[k] != kicFeatureGates[k] {
			out = append(out, k)
		}
	}
	return out
}

// unhonoured are the gate values kongsync cannot act on as KIC does: set, they are refused at
// start (run, dump, diff) rather than accepted and ignored. Each says why.
var unhonoured = map[string]struct {
	value bool
	why   string
}{
	"FillIDs": {false, "kongsync always writes KIC's entity ids (FillIDs=true, KIC's default); leaving them out is not implemented"},
}

// refusal is the error naming every gate set to a value kongsync cannot honour, or nil.
func (fg featureGates) refusal() error {
	var msgs []string
	for _, k := range sortedKeys(unhonoured) {
		if u := unhonoured[k]; fg[k] == u.value {
			msgs = append(msgs, fmt.Sprintf("%s=%v: %s", k, u.value, u.why))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New("--feature-gates: not supported by kongsync: " + strings.Join(msgs, "; "))
}

// translatorFeatures are the gates the translator acts on.
func (fg featureGates) translatorFeatures() translator.Features {
	return translator.Features{RewriteURIs: fg["RewriteURIs"], KongServiceFacade: fg["KongServiceFacade"]}
}
