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

// KIC v3.5.13's fallback metric names: the same series for a fallback configuration
// (FallbackConfiguration on, objects rejected; docs/sync.md, "Fallback"), plus the time spent
// deciding what to leave out.
const (
	MetricFallbackTranslationCount           = "ingress_controller_fallback_translation_count"
	MetricFallbackTranslationBrokenResources = "ingress_controller_fallback_translation_broken_resource_count"
	MetricFallbackTranslationDuration        = "ingress_controller_fallback_translation_duration_milliseconds"
	MetricFallbackConfigPushCount            = "ingress_controller_fallback_configuration_push_count"
	MetricFallbackConfigPushLast             = "ingress_controller_fallback_configuration_push_last"
	MetricFallbackConfigPushDuration         = "ingress_controller_fallback_configuration_push_duration_milliseconds"
	MetricFallbackConfigPushSize             = "ingress_controller_fallback_configuration_push_size"
	MetricFallbackConfigPushBrokenResources  = "ingress_controller_fallback_configuration_push_broken_resource_count"
	MetricFallbackCacheGenerationDuration    = "ingress_controller_fallback_cache_generation_duration_milliseconds"
)

// kicMetrics are KIC's series, fed from the same observations as kongsync's own: a regular set
// and a fallback set, chosen by the observation's Fallback.
type kicMetrics struct {
	instance string // KIC's instance_id: a random id per process, as KIC's manager id

	regular, fallback *kicSeries
	// cacheGeneration is KIC's fallback cache generation time: kongsync's plan (sync/fallback).
	cacheGeneration *prometheus.HistogramVec
}

// kicSeries are the translation and push series of one mode.
type kicSeries struct {
	pushCount           *prometheus.CounterVec
	pushBroken          *prometheus.GaugeVec
	pushLastSuccessful  *prometheus.GaugeVec
	pushSize            *prometheus.GaugeVec
	pushDuration        *prometheus.HistogramVec
	translationCount    *prometheus.CounterVec
	translationBroken   *prometheus.GaugeVec
	translationDuration *prometheus.HistogramVec
}

// seriesNames are one mode's metric names, the words its help texts add, and its push duration
// buckets (KIC gives the fallback push histogram Prometheus's default buckets).
type seriesNames struct {
	pushCount, pushBroken, pushLast, pushSize, pushDuration, translationCount, translationBroken, translationDuration string
	mode                                                                                                              string
	pushBuckets                                                                                                       []float64
}

var (
	regularNames = seriesNames{MetricConfigPushCount, MetricConfigPushBrokenResources, MetricConfigPushLastSuccessful,
		MetricConfigPushSize, MetricConfigPushDuration, MetricTranslationCount, MetricTranslationBrokenResources,
		MetricTranslationDuration, "", prometheus.ExponentialBuckets(100, 1.33, 30)}
	fallbackNames = seriesNames{MetricFallbackConfigPushCount, MetricFallbackConfigPushBrokenResources, MetricFallbackConfigPushLast,
		MetricFallbackConfigPushSize, MetricFallbackConfigPushDuration, MetricFallbackTranslationCount,
		MetricFallbackTranslationBrokenResources, MetricFallbackTranslationDuration, " in fallback mode", prometheus.DefBuckets}
)

func newKICMetrics(instance string) *kicMetrics {
	return &kicMetrics{instance: instance, regular: newKICSeries(regularNames), fallback: newKICSeries(fallbackNames),
		cacheGeneration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricFallbackCacheGenerationDuration,
			Help: "How long it took to decide what a fallback configuration leaves out and puts back, in milliseconds " +
				"(KIC's fallback cache generation; KIC's metric and buckets)."}, []string{labelSuccess, labelInstanceID}),
	}
}

func newKICSeries(n seriesNames) *kicSeries {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	return &kicSeries{
		pushCount: counter(n.pushCount, "Count of successful/failed configuration pushes to Kong"+n.mode+" (KIC's metric). "+
			"`failure_reason` is `network` or `other` when `success=\"false\"`.",
			labelSuccess, labelProtocol, labelFailureReason, labelDataplane, labelInstanceID),
		pushBroken: gauge(n.pushBroken,
			"The number of entities Kong refused in the last configuration push"+n.mode+" to the dataplane (KIC's metric).",
			labelDataplane, labelInstanceID),
		pushLastSuccessful: gauge(n.pushLast,
			"The time of the last successful configuration push"+n.mode+" to the dataplane (KIC's metric).",
			labelDataplane, labelInstanceID),
		pushSize: gauge(n.pushSize, "The size of the configuration pushed to Kong"+n.mode+", in bytes (KIC's metric).",
			labelDataplane, labelProtocol, labelSuccess, labelInstanceID),
		pushDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: n.pushDuration,
			Help:    "How long it took to push the configuration to Kong" + n.mode + ", in milliseconds (KIC's metric and buckets).",
			Buckets: n.pushBuckets,
		}, []string{labelSuccess, labelProtocol, labelDataplane, labelInstanceID}),
		translationCount: counter(n.translationCount, "Count of translations from Kubernetes state to Kong state"+n.mode+
			" (KIC's metric). `success=\"false\"` when some object could not be translated.", labelSuccess, labelInstanceID),
		translationBroken: gauge(n.translationBroken,
			"The number of objects the last translation"+n.mode+" could not (entirely) translate (KIC's metric).", labelInstanceID),
		translationDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: n.translationDuration,
			Help:    "Duration of translating Kubernetes objects into Kong state" + n.mode + ", in milliseconds (KIC's metric and buckets).",
			Buckets: prometheus.ExponentialBucketsRange(1, float64(time.Minute.Milliseconds()), 30),
		}, []string{labelSuccess, labelInstanceID}),
	}
}

func (k *kicMetrics) collectors() []prometheus.Collector {
	out := []prometheus.Collector{k.cacheGeneration}
	for _, s := range []*kicSeries{k.regular, k.fallback} {
		out = append(out, s.pushCount, s.pushBroken, s.pushLastSuccessful, s.pushSize, s.pushDuration,
			s.translationCount, s.translationBroken, s.translationDuration)
	}
	return out
}

func (k *kicMetrics) series(fallback bool) *kicSeries {
	if fallback {
		return k.fallback
	}
	return k.regular
}

// observeTranslation: KIC counts a translation with any failed object as unsuccessful. A
// fallback configuration's translation goes to the fallback series, with its plan's time.
func (k *kicMetrics) observeTranslation(s kongsync.TranslationStats) {
	success := boolLabel(s.BrokenObjects == 0)
	ks := k.series(s.Fallback)
	ks.translationCount.WithLabelValues(success, k.instance).Inc()
	ks.translationDuration.WithLabelValues(success, k.instance).Observe(millis(s.Duration))
	ks.translationBroken.WithLabelValues(k.instance).Set(float64(s.BrokenObjects))
	if s.Fallback {
		k.cacheGeneration.WithLabelValues("true", k.instance).Observe(millis(s.FallbackPlan))
	}
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
	ks := k.series(s.Fallback)
	ks.pushCount.WithLabelValues(success, protocolDBLess, reason, s.Replica, k.instance).Inc()
	ks.pushDuration.WithLabelValues(success, protocolDBLess, s.Replica, k.instance).Observe(millis(s.Duration))
	if s.Bytes > 0 {
		ks.pushSize.WithLabelValues(s.Replica, protocolDBLess, success, k.instance).Set(float64(s.Bytes))
	}
	broken := 0
	if ok {
		ks.pushLastSuccessful.WithLabelValues(s.Replica, k.instance).Set(float64(now.UnixNano()) / 1e9)
	} else {
		broken = s.RejectedEntities
	}
	ks.pushBroken.WithLabelValues(s.Replica, k.instance).Set(float64(broken))
}

// forget deletes every series of a dataplane that went away.
func (k *kicMetrics) forget(replica string) {
	l := prometheus.Labels{labelDataplane: replica}
	for _, s := range []*kicSeries{k.regular, k.fallback} {
		s.pushCount.DeletePartialMatch(l)
		s.pushBroken.DeletePartialMatch(l)
		s.pushLastSuccessful.DeletePartialMatch(l)
		s.pushSize.DeletePartialMatch(l)
		s.pushDuration.DeletePartialMatch(l)
	}
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
	"ingress_controller_processed_config_snapshot_cache_hit": "KIC counts these only with FallbackConfiguration on, " +
		"per sync tick; kongsync has no tick and never translates an unchanged store (sync.Stats.Skipped)",
	"ingress_controller_processed_config_snapshot_cache_miss": "as above",
}
