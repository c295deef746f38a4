package sync

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/translator"
)

// KongRoot is what the loop reads from a replica's GET / (Kong's root endpoint): what a
// configuration must be translated for (KIC reads the version and flavor at startup), and the
// ports Kong listens on (KIC reads them for Gateway listener statuses).
type KongRoot struct {
	// Version is Kong's version (translator.ParseKongVersion).
	Version semver.Version
	// RouterFlavor is configuration.router_flavor: whether routes must be traditional or
	// expressions (docs/sync.md, "Router flavor").
	RouterFlavor translator.RouterFlavor
	// Enterprise: the version names Kong Enterprise (translator.IsKongEnterprise), as KIC
	// decides its EnterpriseEdition; only then are KongLicenses sent.
	Enterprise bool
	// Listeners are the ports Kong listens on (configuration.proxy_listeners and
	// stream_listeners), sorted: the Gateway API status checks listener ports against them.
	Listeners []KongListener
}

// Root reads the replica's version and router flavor from GET /. A version older than KIC v3
// supports, one that cannot be read, or a router_flavor missing or unknown (KIC refuses to start
// on a missing one) is an UnusableVersionError that names it.
func (r *Replica) Root(ctx context.Context) (KongRoot, error) {
	body, err := r.get(ctx, "/", r.opts.ProbeTimeout, 4<<20)
	if err != nil {
		return KongRoot{}, err
	}
	var root struct {
		Version       string `json:"version"`
		Configuration struct {
			RouterFlavor    *string         `json:"router_flavor"`
			ProxyListeners  json.RawMessage `json:"proxy_listeners"`
			StreamListeners json.RawMessage `json:"stream_listeners"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(body, &root); err != nil {
		return KongRoot{}, fmt.Errorf("decode GET /: %w", err)
	}
	v, err := translator.ParseKongVersion(root.Version)
	if err != nil {
		return KongRoot{}, UnusableVersionError{fmt.Errorf("Kong admin API %s, GET /: %w", r.name, err)}
	}
	if root.Configuration.RouterFlavor == nil {
		return KongRoot{}, UnusableVersionError{fmt.Errorf("Kong admin API %s, GET /: no configuration.router_flavor", r.name)}
	}
	f, err := translator.ParseRouterFlavor(*root.Configuration.RouterFlavor)
	if err != nil {
		return KongRoot{}, UnusableVersionError{fmt.Errorf("Kong admin API %s, GET /: configuration.router_flavor: %w", r.name, err)}
	}
	return KongRoot{Version: v, RouterFlavor: f, Enterprise: translator.IsKongEnterprise(root.Version),
		Listeners: kongListeners(root.Configuration.ProxyListeners, root.Configuration.StreamListeners)}, nil
}

// KongVersion reads the version Kong reports in GET /, as KIC does at startup (see Root).
func (r *Replica) KongVersion(ctx context.Context) (semver.Version, error) {
	root, err := r.Root(ctx)
	return root.Version, err
}
