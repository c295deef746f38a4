package runner

import (
	"context"

	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/informer"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// ClusterSnapshot lists what the controller would watch (cfg's kubeconfig, namespaces) into a
// store, as Run does before its first push, and returns its snapshot: `kongsync diff`
// translates the cluster with it. The informers stop before it returns.
func ClusterSnapshot(ctx context.Context, cfg Config, log logr.Logger) (*store.Snapshot, error) {
	kc, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := store.New()
	ctrl, err := informer.New(kc.typed, st, nopNotifier{}, log, informer.Options{Namespaces: cfg.WatchNamespaces,
		CustomResources: kc.custom, Metadata: kc.meta, GatewayAlpha: cfg.GatewayAlpha,
		KongServiceFacade: cfg.Features.KongServiceFacade, DisableKongCustomEntity: cfg.DisableKongCustomEntity})
	if err != nil {
		return nil, err
	}
	defer ctrl.Shutdown()
	defer cancel() // Shutdown waits for the informers, which stop with ctx
	if err := ctrl.Start(ctx); err != nil {
		return nil, err
	}
	return st.Snapshot(), nil
}

type nopNotifier struct{}

func (nopNotifier) Notify() {}

// TranslatorOptions are the translator options Run builds with for cfg: a check that compares
// a running controller's output with a cold build of the cluster (`kongsync diff`, the soak
// test) must translate with the same ones.
func TranslatorOptions(cfg Config) translator.Options { return translatorOptions(cfg) }
