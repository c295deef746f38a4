// Package metrics exposes kongsync's Prometheus metrics (KIC's names, kic.go, and kongsync's
// own where KIC has none), its health endpoints and the Events it emits on Kubernetes objects.
// It implements the sync loop's Metrics and Reporter interfaces.
package metrics

import (
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// Prometheus implements sync.Metrics with a dedicated registry (no global state), so tests and
// several controllers in one process never collide.
type Prometheus struct {
	Registry *prometheus.Registry

	kic *kicMetrics

	translationDuration prometheus.Histogram
	objects             prometheus.Gauge
	problems            prometheus.Gauge
	excluded            prometheus.Gauge
	configBytes         prometheus.Gauge
	pushDuration        *prometheus.HistogramVec
	changeToPost        prometheus.Histogram
	pushes              *prometheus.CounterVec
	reachable           *prometheus.GaugeVec
	inSync              *prometheus.GaugeVec
	kongLoad            *prometheus.CounterVec
	deferred            *prometheus.CounterVec
	routerFlavor        *prometheus.GaugeVec
	flavorMismatch      *prometheus.GaugeVec
}

// New registers every metric, KIC's with a random instance_id as KIC's manager has, plus the Go
// runtime and process collectors.
func New() *Prometheus { return NewForInstance(uuid.NewString()) }

// NewForInstance is New with the given instance_id label value.
func NewForInstance(instanceID string) *Prometheus {
	r := prometheus.NewRegistry()
	p := &Prometheus{
		Registry: r,
		kic:      newKICMetrics(instanceID),
		translationDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kongsync_translation_duration_seconds",
			Help:    "Time to snapshot the store and translate it into a Kong configuration.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		objects: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kongsync_translation_objects", Help: "Kubernetes objects in the last translated snapshot.",
		}),
		problems: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kongsync_translation_problems", Help: "Problems (skipped objects or fields) in the last translation.",
		}),
		excluded: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kongsync_excluded_objects", Help: "Objects left out of the configuration because Kong rejected them.",
		}),
		configBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kongsync_config_bytes", Help: "Size of the last configuration built, in bytes.",
		}),
		pushDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kongsync_push_duration_seconds",
			Help:    "Duration of POST /config to one Kong replica, by result.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"replica", "result"}),
		changeToPost: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kongsync_change_to_post_seconds",
			Help: "Time from the first Kubernetes change a configuration includes (as kongsync heard of it) " +
				"to the start of its first POST /config to each Kong replica, coalescing window included.",
			// Fine around the default 100 ms window, where the target (window + 50 ms) lies.
			Buckets: []float64{.01, .025, .05, .1, .105, .11, .12, .13, .15, .2, .3, .5, 1, 2.5, 5, 10},
		}),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kongsync_pushes_total", Help: "POST /config attempts per Kong replica and result.",
		}, []string{"replica", "result"}),
		reachable: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kongsync_replica_reachable", Help: "1 if the last GET /status of the Kong replica answered.",
		}, []string{"replica"}),
		inSync: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kongsync_replica_in_sync", Help: "1 if the Kong replica reported the latest configuration hash at its last probe.",
		}, []string{"replica"}),
		kongLoad: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kongsync_kong_load_seconds_total",
			Help: "Time the Kong replica spent on the POST /config it took (201, 304): Kong's own X-Kong-Admin-Latency " +
				"when it reports one, else the round trip. Its rate is the share of time Kong spends loading (--kong-load-budget).",
		}, []string{"replica"}),
		deferred: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kongsync_pushes_deferred_total",
			Help: "Pushes to the Kong replica held back to spare it, by the rule that held them: load_budget " +
				"(--kong-load-budget) or proxy_sync_interval (--proxy-sync-seconds). Changes made meanwhile go in one push.",
		}, []string{"replica", "reason"}),
		routerFlavor: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kongsync_replica_router_flavor",
			Help: "1 for the router_flavor the Kong replica last reported in GET / (one series per replica).",
		}, []string{"replica", "flavor"}),
		flavorMismatch: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kongsync_replica_router_flavor_mismatch",
			Help: "1 while the Kong replica is posted nothing because its router_flavor needs other routes than " +
				"the flavor most replicas report, which kongsync translates for; else 0.",
		}, []string{"replica"}),
	}
	r.MustRegister(p.translationDuration, p.objects, p.problems, p.excluded,
		p.configBytes, p.pushDuration, p.changeToPost, p.pushes, p.reachable, p.inSync, p.kongLoad, p.deferred,
		p.routerFlavor, p.flavorMismatch,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.MustRegister(p.kic.collectors()...)
	return p
}

// ObserveTranslation implements sync.Metrics.
func (p *Prometheus) ObserveTranslation(s kongsync.TranslationStats) {
	p.kic.observeTranslation(s)
	p.translationDuration.Observe(s.Duration.Seconds())
	p.objects.Set(float64(s.Objects))
	p.problems.Set(float64(s.Problems))
	p.excluded.Set(float64(s.Excluded))
	p.configBytes.Set(float64(s.ConfigBytes))
}

// ObservePush implements sync.Metrics.
func (p *Prometheus) ObservePush(s kongsync.PushStats) {
	p.kic.observePush(s, time.Now())
	p.pushDuration.WithLabelValues(s.Replica, string(s.Result)).Observe(s.Duration.Seconds())
	p.pushes.WithLabelValues(s.Replica, string(s.Result)).Inc()
	if s.LoadCost > 0 {
		p.kongLoad.WithLabelValues(s.Replica).Add(s.LoadCost.Seconds())
	}
}

// ObserveDeferred implements sync.PacingMetrics.
func (p *Prometheus) ObserveDeferred(replica string, reason kongsync.PaceReason) {
	p.deferred.WithLabelValues(replica, string(reason)).Inc()
}

// ForgetReplica implements sync.ReplicaMetrics: every series of a Kong replica that went away is
// deleted, so no gauge keeps reporting it (a stuck "unreachable" or "last success" alerts for a
// Pod that no longer exists).
func (p *Prometheus) ForgetReplica(replica string) {
	p.kic.forget(replica)
	l := prometheus.Labels{"replica": replica}
	p.pushDuration.DeletePartialMatch(l)
	p.pushes.DeletePartialMatch(l)
	p.reachable.DeletePartialMatch(l)
	p.inSync.DeletePartialMatch(l)
	p.kongLoad.DeletePartialMatch(l)
	p.deferred.DeletePartialMatch(l)
	p.routerFlavor.DeletePartialMatch(l)
	p.flavorMismatch.DeletePartialMatch(l)
}

// ObserveRouterFlavor implements sync.FlavorMetrics: the replica's flavor (its previous
// flavor's series is dropped) and whether it is left out for it.
func (p *Prometheus) ObserveRouterFlavor(replica string, flavor translator.RouterFlavor, mismatched bool) {
	p.routerFlavor.DeletePartialMatch(prometheus.Labels{"replica": replica})
	p.routerFlavor.WithLabelValues(replica, string(flavor)).Set(1)
	p.flavorMismatch.WithLabelValues(replica).Set(boolFloat(mismatched))
}

// ObserveChangeToPost implements sync.LatencyMetrics.
func (p *Prometheus) ObserveChangeToPost(_ string, d time.Duration) {
	p.changeToPost.Observe(d.Seconds())
}

// ObserveProbe implements sync.ProbeMetrics: during an outage only probes run, so these gauges
// are what shows it.
func (p *Prometheus) ObserveProbe(replica string, reachable, synced bool) {
	p.reachable.WithLabelValues(replica).Set(boolFloat(reachable))
	p.inSync.WithLabelValues(replica).Set(boolFloat(synced))
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var (
	_ kongsync.Metrics        = (*Prometheus)(nil)
	_ kongsync.ProbeMetrics   = (*Prometheus)(nil)
	_ kongsync.LatencyMetrics = (*Prometheus)(nil)
	_ kongsync.ReplicaMetrics = (*Prometheus)(nil)
	_ kongsync.PacingMetrics  = (*Prometheus)(nil)
)
