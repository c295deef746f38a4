package runner

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kongsync/kongsync/admission"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// AdmissionOff is KIC's --admission-webhook-listen value that disables the webhook (its default).
const AdmissionOff = "off"

// translatorOptions are the translation settings of the sync loop and the admission webhook.
func translatorOptions(cfg Config) translator.Options {
	opts := translator.DefaultOptions()
	opts.IngressClass = cfg.IngressClass
	opts.ClusterDomain = cfg.ClusterDomain
	opts.Hardening = cfg.Hardening
	opts.Now = time.Now // KIC's expiry check of CA certificates
	opts.Features, opts.DrainSupport, opts.GatewayToReconcile = cfg.Features, cfg.DrainSupport, cfg.GatewayToReconcile
	if cfg.GatewayAPIControllerName != "" {
		opts.GatewayControllerName = cfg.GatewayAPIControllerName
	}
	return opts
}

// serveAdmission runs the admission webhook (HTTPS on --admission-webhook-listen) judging
// objects against st, once synced; it binds and loads its certificate now, so that a port
// clash or a missing certificate fails startup.
func serveAdmission(g *group, cfg Config, st *store.Store, client kubernetes.Interface, loop *kongsync.Loop, synced *atomic.Bool, log logr.Logger) error {
	if cfg.AdmissionWebhookListen == "" || cfg.AdmissionWebhookListen == AdmissionOff {
		return nil
	}
	tlsCfg, err := admission.TLSConfig(cfg.AdmissionTLS)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.AdmissionWebhookListen)
	if err != nil {
		return fmt.Errorf("admission webhook listener: %w", err)
	}
	v := admission.New(st, translatorOptions(cfg), synced.Load, cfg.WatchNamespaces)
	v.Fetch = fetchSecret(client)
	v.KongVersion = loop.KongVersion
	v.RouterFlavor = loop.RouterFlavor
	v.EntitySchemas = loop.EntitySchemas
	if cfg.DisableKongCustomEntity {
		v.NotRead = map[store.Kind]string{store.KindKongCustomEntity: "the KongCustomEntity feature gate is off"}
	}
	h := admission.Handler(v, log.WithName("admission"), cfg.Hooks.Admission)
	g.go_(func(ctx context.Context) error {
		return metrics.Serve(ctx, log.WithName("admission"), tls.NewListener(ln, tlsCfg), h)
	})
	return nil
}

// fetchSecret GETs a Secret for the webhook (nil when it does not exist).
func fetchSecret(client kubernetes.Interface) admission.Fetch {
	return func(ctx context.Context, ref store.Ref) (store.Object, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		s, err := client.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// serveSide starts the servers beside the flow: metrics and health, diagnostics, admission.
func serveSide(g *group, cfg Config, st *store.Store, client kubernetes.Interface, prom *metrics.Prometheus, loop *kongsync.Loop,
	synced *atomic.Bool, log logr.Logger) error {
	if err := serveDiagnostics(g, cfg, prom, readiness(cfg, loop, synced), log); err != nil {
		return err
	}
	if err := serveDebug(g, cfg, loop, log); err != nil {
		return err
	}
	return serveAdmission(g, cfg, st, client, loop, synced, log)
}
