package main

import (
	"flag"
	"strings"

	"github.com/kongsync/kongsync/translator"
)

// translateFlags are KIC's flags that change what is translated, which `dump` and `diff` take as
// `run` does (run defines them with pflag in run_flags.go), so that they translate alike.
type translateFlags struct {
	gates   *gatesValue
	gateway *validated
	drain   bool
}

// Usage texts shared by run, dump and diff.
const (
	featureGatesUsage = "KIC's feature gates, A=true,B=false (KIC's defaults otherwise); unknown gates, and gates kongsync cannot honour " +
		"(FillIDs=false), are an error; FallbackConfiguration acts in the live sync loop only (when Kong rejects objects)"
	gatewayToReconcileUsage = "namespace/name of the one Gateway whose routes (and listeners' certificates) are translated; unset: every Gateway of the class"
	drainSupportUsage       = "keep terminating endpoints as targets of weight 0 (Kong sends them no new connection), as KIC"
)

// defineTranslateFlags defines them on a standard library FlagSet (dump, diff).
func defineTranslateFlags(fs *flag.FlagSet, tf *translateFlags) {
	tf.gates = &gatesValue{featureGates: newFeatureGates()}
	tf.gateway = newValidated("", "namespaced-name", checkNamespacedName)
	fs.Var(tf.gates, "feature-gates", featureGatesUsage)
	fs.Var(tf.gateway, "gateway-to-reconcile", gatewayToReconcileUsage)
	fs.BoolVar(&tf.drain, "enable-drain-support", false, drainSupportUsage)
}

// apply checks the gates (a gate kongsync cannot honour is refused) and sets the options. The
// custom entity types' schemas are the bundled ones (no Kong is asked; diff asks its Kong).
func (tf *translateFlags) apply(opts *translator.Options) error {
	if err := tf.gates.refusal(); err != nil {
		return err
	}
	opts.Features = tf.gates.translatorFeatures()
	opts.DrainSupport, opts.GatewayToReconcile = tf.drain, tf.gateway.val
	opts.EntitySchemas = translator.BundledEntitySchemas()
	return nil
}

// customEntity reports whether the KongCustomEntity gate is on (KIC's default): KongCustomEntities
// are read.
func (tf *translateFlags) customEntity() bool { return tf.gates.featureGates["KongCustomEntity"] }

// gatewayAlpha reports whether the GatewayAlpha gate is on: TCPRoutes, UDPRoutes and TLSRoutes
// are read.
func (tf *translateFlags) gatewayAlpha() bool { return tf.gates.featureGates["GatewayAlpha"] }

// gatesValue is --feature-gates remembering which gates the command line named.
type gatesValue struct {
	featureGates
	named map[string]bool
}

func (g *gatesValue) Set(v string) error {
	if err := g.featureGates.Set(v); err != nil {
		return err
	}
	g.named = map[string]bool{}
	for _, s := range strings.Split(v, ",") {
		k, _, _ := strings.Cut(s, "=")
		g.named[strings.TrimSpace(k)] = true
	}
	return nil
}
