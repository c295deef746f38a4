package metrics

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	clientmetrics "k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/workqueue"
)

// KubeClient holds the client-go metrics KIC's /metrics serves through controller-runtime
// v0.21.0's registry (KIC v3.5.13's version): rest_client_requests_total and the workqueue_*
// family, with controller-runtime's names, labels and buckets, so dashboards built on KIC's
// client-side Kubernetes API metrics keep working.
type KubeClient struct {
	requests *prometheus.CounterVec

	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	queueLatency, workDuration *prometheus.HistogramVec
}

// NewKubeClient builds the collectors; Install hands them to client-go.
func NewKubeClient() *KubeClient {
	queueHist := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: name, Help: help,
			Buckets: prometheus.ExponentialBuckets(10e-9, 10, 12)}, []string{"name", "controller"})
	}
	queueGauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: name, Help: help},
			[]string{"name", "controller"})
	}
	queueCounter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: name, Help: help},
			[]string{"name", "controller"})
	}
	return &KubeClient{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rest_client_requests_total",
			Help: "Kubernetes API requests by status code, method and host (controller-runtime's metric, as KIC serves it)."},
			[]string{"code", "method", "host"}),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth",
			Help: "Current depth of the work queue (controller-runtime's metric; priority is always empty)."},
			[]string{"name", "controller", "priority"}),
		adds:         queueCounter("adds_total", "Items added to the work queue."),
		retries:      queueCounter("retries_total", "Rate-limited re-adds to the work queue."),
		queueLatency: queueHist("queue_duration_seconds", "How long an item stays in the work queue before a worker takes it."),
		workDuration: queueHist("work_duration_seconds", "How long processing an item of the work queue takes."),
		unfinished: queueGauge("unfinished_work_seconds",
			"Seconds of work in progress not yet observed by work_duration; a steady rise means a stuck worker."),
		longest: queueGauge("longest_running_processor_seconds", "How long the longest-running worker of the queue has been running."),
	}
}

// Collectors are what a registry serves; one KubeClient may be registered in several registries.
func (k *KubeClient) Collectors() []prometheus.Collector {
	return []prometheus.Collector{k.requests, k.depth, k.adds, k.retries, k.queueLatency, k.workDuration,
		k.unfinished, k.longest}
}

// Install makes client-go report to k. client-go's hooks are process-wide and the first caller
// wins (both are sync.Once in client-go), which is client-go's API, not a choice here: the
// runner installs one KubeClient per process and registers it in each registry it builds.
// Work queues created before Install report nothing.
func (k *KubeClient) Install() {
	clientmetrics.Register(clientmetrics.RegisterOpts{RequestResult: requestResult{k.requests}})
	workqueue.SetProvider(queueProvider{k})
}

// requestResult adapts client-go's ResultMetric.
type requestResult struct{ c *prometheus.CounterVec }

func (r requestResult) Increment(_ context.Context, code, method, host string) {
	r.c.WithLabelValues(code, method, host).Inc()
}

// queueProvider is client-go's workqueue.MetricsProvider; as controller-runtime's, it sets both
// name and controller to the queue's name.
type queueProvider struct{ k *KubeClient }

func (p queueProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.k.depth.WithLabelValues(name, name, "")
}
func (p queueProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.k.adds.WithLabelValues(name, name)
}
func (p queueProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.k.queueLatency.WithLabelValues(name, name)
}
func (p queueProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.k.workDuration.WithLabelValues(name, name)
}
func (p queueProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.k.unfinished.WithLabelValues(name, name)
}
func (p queueProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.k.longest.WithLabelValues(name, name)
}
func (p queueProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.k.retries.WithLabelValues(name, name)
}

// processKubeClient is the one KubeClient of the process, installed on first use: client-go's
// hooks are process-global (see Install), so this mirrors them rather than adding state.
var processKubeClient = sync.OnceValue(func() *KubeClient {
	k := NewKubeClient()
	k.Install()
	return k
})

// ProcessKubeClient returns the process's KubeClient, installing it into client-go the first
// time. Call it before creating work queues.
func ProcessKubeClient() *KubeClient { return processKubeClient() }
