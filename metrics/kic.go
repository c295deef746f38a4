package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	kongsync "github.com/kongsync/kongsync/sync"
)

// KIC v3.5.13's metric names (internal/metrics/prometheus.go): dashboards and alerts written for
// KIC read these, so the names, label names and label values are KIC's.
const (
	MetricConfigPushCount            = "ingress_controller_configuration_push_count"
	MetricConfigPushBrokenResources  = "ingress_controller_configuration_push_broken_resource_count"
	MetricConfigPushLastSuccessful   = "ingress_controller_configuration_push_last_successful"
	MetricConfigPushSize             = "ingress_controller_configuration_push_size"
	MetricConfigPushDuration         = "ingress_controller_configuration_push_duration_milliseconds"
	MetricTranslationCount           = "ingress_controller_translation_count"
	MetricTranslationBrokenResources = "ingress_controller_translation_broken_resource_count"
	MetricTranslationDuration        = "ingress_controller_translation_duration_milliseconds"
)

// KIC's label names and values.
const (
	labelSuccess       = "success"
	labelProtocol      = "protocol"
	labelFailureReason = "failure_reason"
	labelDataplane     = "dataplane"
	labelInstanceID    = "instance_id"

	protocolDBLess = "db-less" // the only protocol kongsync speaks (KIC also has "deck")
	reasonNetwork  = "network" // KIC's other values: "conflict" (DB mode only) and "other"
	reasonOther    = "other"
)

// kicMetrics are KIC's series, fed from the same observations as kongsync's own.
type kicMetrics struct {
	instance string // KIC's instance_id: a random id per process, as KIC's manager id

	pushCount           *prometheus.CounterVec
	pushBroken          *prometheus.GaugeVec
	pushLastSuccessful  *prometheus.GaugeVec
	pushSize            *prometheus.GaugeVec
	pushDuration        *prometheus.HistogramVec
	translationCount    *prometheus.CounterVec
	translationBroken   *prometheus.GaugeVec
	translationDuration *prometheus.HistogramVec
}

func newKICMetrics(instance string) *kicMetrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	return &kicMetrics{
		instance: instance,
		pushCount: counter(MetricConfigPushCount, "Count of successful/failed configuration pushes to Kong (KIC's metric). "+
			"`failure_reason` is `network` or `other` when `success=\"false\"`.",
			labelSuccess, labelProtocol, labelFailureReason, labelDataplane, labelInstanceID),
		pushBroken: gauge(MetricConfigPushBrokenResources,
			"The number of entities Kong refused in the last configuration push to the dataplane (KIC's metric).",
			labelDataplane, labelInstanceID),
		pushLastSuccessful: gauge(MetricConfigPushLastSuccessful,
			"The time of the last successful configuration push to the dataplane (KIC's metric).",
			labelDataplane, labelInstanceID),
		pushSize: gauge(MetricConfigPushSize, "The size of the configuration pushed to Kong, in bytes (KIC's metric).",
			labelDataplane, labelProtocol, labelSuccess, labelInstanceID),
		pushDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricConfigPushDuration,
			Help:    "How long it took to push the configuration to Kong, in milliseconds (KIC's metric and buckets).",
			Buckets: prometheus.ExponentialBuckets(100, 1.33, 30),
		}, []string{labelSuccess, labelProtocol, labelDataplane, labelInstanceID}),
		translationCount: counter(MetricTranslationCount, "Count of translations from Kubernetes state to Kong state (KIC's metric). "+
			"`success=\"false\"` when some object could not be translated.", labelSuccess, labelInstanceID),
		translationBroken: gauge(MetricTranslationBrokenResources,
			"The number of objects the last translation could not (entirely) translate (KIC's metric).", labelInstanceID),
		translationDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricTranslationDuration,
			Help:    "Duration of translating Kubernetes objects into Kong state, in milliseconds (KIC's metric and buckets).",
			Buckets: prometheus.ExponentialBucketsRange(1, float64(time.Minute.Milliseconds()), 30),
		}, []string{labelSuccess, labelInstanceID}),
	}
}

func (k *kicMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{k.pushCount, k.pushBroken, k.pushLastSuccessful, k.pushSize, k.pushDuration,
		k.translationCount, k.translationBroken, k.translationDuration}
}

// observeTranslation: KIC counts a translation with any failed object as unsuccessful.
func (k *kicMetrics) observeTranslation(s kongsync.TranslationStats) {
	success := boolLabel(s.BrokenObjects == 0)
	k.translationCount.WithLabelValues(success, k.instance).Inc()
	k.translationDuration.WithLabelValues(success, k.instance).Observe(millis(s.Duration))
	k.translationBroken.WithLabelValues(k.instance).Set(float64(s.BrokenObjects))
}

// observePush: 201 and 304 are successes (Kong holds the config); a failure's reason is
// "network" when Kong was not reached, else "other", as KIC classifies DB-less failures.
func (k *kicMetrics) observePush(s kongsync.PushStats, now time.Time) {
	ok := s.Result == kongsync.ResultAccepted || s.Result == kongsync.ResultUnchanged
	success, reason := boolLabel(ok), ""
	switch {
	case ok:
	case s.Result == kongsync.ResultNetworkError:
		reason = reasonNetwork
	default:
		reason = reasonOther
	}
	k.pushCount.WithLabelValues(success, protocolDBLess, reason, s.Replica, k.instance).Inc()
	k.pushDuration.WithLabelValues(success, protocolDBLess, s.Replica, k.instance).Observe(millis(s.Duration))
	if s.Bytes > 0 {
		k.pushSize.WithLabelValues(s.Replica, protocolDBLess, success, k.instance).Set(float64(s.Bytes))
	}
	broken := 0
	if ok {
		k.pushLastSuccessful.WithLabelValues(s.Replica, k.instance).Set(float64(now.UnixNano()) / 1e9)
	} else {
		broken = s.RejectedEntities
	}
	k.pushBroken.WithLabelValues(s.Replica, k.instance).Set(float64(broken))
}

// forget deletes every series of a dataplane that went away.
func (k *kicMetrics) forget(replica string) {
	l := prometheus.Labels{labelDataplane: replica}
	k.pushCount.DeletePartialMatch(l)
	k.pushBroken.DeletePartialMatch(l)
	k.pushLastSuccessful.DeletePartialMatch(l)
	k.pushSize.DeletePartialMatch(l)
	k.pushDuration.DeletePartialMatch(l)
}

// millis keeps sub-millisecond precision: KIC truncates to whole milliseconds, which records 0
// for the sub-millisecond incremental builds kongsync makes.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// KICNotExposed are KIC's metrics kongsync has no series for, and why (docs/operations.md
// lists them too). Read-only.
var KICNotExposed = map[string]string{
	"ingress_controller_fallback_translation_count": "KIC's FallbackConfiguration gate; kongsync always leaves " +
		"rejected objects out and counts that rebuild in the regular translation and push series",
	"ingress_controller_fallback_translation_broken_resource_count":        "as above (fallback mode)",
	"ingress_controller_fallback_translation_duration_milliseconds":        "as above (fallback mode)",
	"ingress_controller_fallback_configuration_push_count":                 "as above (fallback mode)",
	"ingress_controller_fallback_configuration_push_last":                  "as above (fallback mode)",
	"ingress_controller_fallback_configuration_push_duration_milliseconds": "as above (fallback mode)",
	"ingress_controller_fallback_configuration_push_size":                  "as above (fallback mode)",
	"ingress_controller_fallback_configuration_push_broken_resource_count": "as above (fallback mode)",
	"ingress_controller_fallback_cache_generation_duration_milliseconds":   "as above (fallback mode)",
	"ingress_controller_processed_config_snapshot_cache_hit": "KIC counts these only with FallbackConfiguration on; " +
		"kongsync never translates an unchanged store (sync.Stats.Skipped)",
	"ingress_controller_processed_config_snapshot_cache_miss": "as above",
}
