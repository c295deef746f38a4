package metrics

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	kongsync "github.com/kongsync/kongsync/sync"
)

type kicMetric struct {
	name, typ string
	labels    []string
}

// readKICMetrics reads testdata/kic-v3.5.13-metrics.tsv, generated from KIC's source.
func readKICMetrics(t *testing.T) []kicMetric {
	t.Helper()
	f, err := os.Open("testdata/kic-v3.5.13-metrics.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kicMetric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			c := strings.Split(line, "\t")
			out = append(out, kicMetric{name: c[0], typ: c[1], labels: strings.Split(c[2], ",")})
		}
	}
	if len(out) != 19 {
		t.Fatalf("%d KIC metrics in testdata, want 19", len(out))
	}
	return out
}

// families gathers the registry: metric name → family.
func families(t *testing.T, p *Prometheus) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := p.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

func labelNames(m *dto.Metric) []string {
	var out []string
	for _, l := range m.GetLabel() {
		out = append(out, l.GetName())
	}
	slices.Sort(out)
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// observeAll feeds one of each observation, so that every vector has a series to show.
func observeAll(p *Prometheus, replicas ...string) {
	p.ObserveTranslation(kongsync.TranslationStats{Duration: 1500 * time.Microsecond, Objects: 7, Problems: 3, BrokenObjects: 2, ConfigBytes: 1234})
	for _, r := range replicas {
		p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultAccepted, Duration: 5 * time.Millisecond, Bytes: 1300,
			LoadCost: 4 * time.Millisecond})
		p.ObserveDeferred(r, kongsync.PaceLoadBudget)
		p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultRejected, Duration: 5 * time.Millisecond, Bytes: 1300, RejectedEntities: 4})
		p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultNetworkError, Duration: time.Millisecond, Bytes: 1300})
		p.ObserveProbe(r, true, true)
		p.ObserveChangeToPost(r, 110*time.Millisecond)
		p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultRejected, Duration: 5 * time.Millisecond, Bytes: 900,
			RejectedEntities: 1, Fallback: true})
		p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultAccepted, Duration: 5 * time.Millisecond, Bytes: 800, Fallback: true})
	}
	p.ObserveTranslation(kongsync.TranslationStats{Duration: 3 * time.Millisecond, Objects: 7, BrokenObjects: 1, Excluded: 3,
		Fallback: true, FallbackPlan: 250 * time.Microsecond})
}

// Every KIC metric is either exposed with KIC's name, type and label names, or listed in
// KICNotExposed with a reason (and then really absent).
func TestKICMetricNames(t *testing.T) {
	p := NewForInstance("test-instance")
	observeAll(p, "https://10.0.0.5:8444")
	got := families(t, p)
	exposed := 0
	for _, km := range readKICMetrics(t) {
		mf, ok := got[km.name]
		if why := KICNotExposed[km.name]; why != "" {
			if ok {
				t.Errorf("%s is exposed but listed as not exposed (%s)", km.name, why)
			}
			continue
		}
		if !ok {
			t.Errorf("KIC's %s is not exposed", km.name)
			continue
		}
		exposed++
		if typ := strings.ToLower(mf.GetType().String()); typ != km.typ {
			t.Errorf("%s is a %s, KIC's is a %s", km.name, typ, km.typ)
		}
		want := slices.Sorted(slices.Values(km.labels))
		for _, m := range mf.GetMetric() {
			if l := labelNames(m); !slices.Equal(l, want) {
				t.Errorf("%s labels %v, KIC's %v", km.name, l, want)
			}
			if v := labelValue(m, labelInstanceID); v != "test-instance" {
				t.Errorf("%s instance_id = %q", km.name, v)
			}
		}
	}
	if exposed != 17 {
		t.Errorf("%d KIC metrics exposed, want 17", exposed)
	}
	for name := range KICNotExposed {
		if !strings.HasPrefix(name, "ingress_controller_") {
			t.Errorf("KICNotExposed lists %s, not a KIC metric", name)
		}
	}
}

// KIC's label values: success "true"/"false", protocol "db-less", failure_reason "" on success,
// "network" when Kong was not reached, "other" otherwise; the broken-resource gauges.
func TestKICMetricValues(t *testing.T) {
	p := NewForInstance("i")
	const r = "https://10.0.0.5:8444"
	observeAll(p, r)
	got := families(t, p)
	counts := map[string]float64{}
	for _, m := range got[MetricConfigPushCount].GetMetric() {
		if labelValue(m, labelProtocol) != "db-less" || labelValue(m, labelDataplane) != r {
			t.Errorf("push count series %v", m.GetLabel())
		}
		counts[labelValue(m, labelSuccess)+"/"+labelValue(m, labelFailureReason)] = m.GetCounter().GetValue()
	}
	if want := map[string]float64{"true/": 1, "false/other": 1, "false/network": 1}; !mapsEqual(counts, want) {
		t.Errorf("push counts by success/failure_reason = %v, want %v", counts, want)
	}
	gauge := func(name string) float64 {
		ms := got[name].GetMetric()
		if len(ms) != 1 {
			t.Fatalf("%s: %d series, want 1", name, len(ms))
		}
		return ms[0].GetGauge().GetValue()
	}
	if v := gauge(MetricTranslationBrokenResources); v != 2 {
		t.Errorf("translation broken resources = %v, want 2 (objects, not problems)", v)
	}
	if v := gauge(MetricConfigPushBrokenResources); v != 0 {
		t.Errorf("push broken resources after a network error = %v, want 0 (entities of the last push)", v)
	}
	if v := gauge(MetricConfigPushLastSuccessful); v < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("last successful push = %v, want about now in Unix seconds", v)
	}
	for _, m := range got[MetricTranslationCount].GetMetric() {
		if labelValue(m, labelSuccess) != "false" {
			t.Errorf("a translation with broken objects counted as success=%s", labelValue(m, labelSuccess))
		}
	}
	h := got[MetricTranslationDuration].GetMetric()[0].GetHistogram()
	if h.GetSampleSum() != 1.5 {
		t.Errorf("translation duration sum = %v ms, want 1.5 (sub-millisecond precision kept)", h.GetSampleSum())
	}
	p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultRejected, RejectedEntities: 4})
	if v := families(t, p)[MetricConfigPushBrokenResources].GetMetric()[0].GetGauge().GetValue(); v != 4 {
		t.Errorf("push broken resources after a 400 naming 4 entities = %v", v)
	}
}

// A replica that went away leaves no series behind, in KIC's metrics or kongsync's; the other
// replica's stay.
func TestForgetReplicaDeletesItsSeries(t *testing.T) {
	p := NewForInstance("i")
	const gone, kept = "https://10.0.0.5:8444", "https://10.0.0.6:8444"
	observeAll(p, gone, kept)
	p.ForgetReplica(gone)
	perReplica := 0
	for name, mf := range families(t, p) {
		for _, m := range mf.GetMetric() {
			r := labelValue(m, "replica") + labelValue(m, labelDataplane)
			if r == gone {
				t.Errorf("%s still has a series for %s: %v", name, gone, m.GetLabel())
			}
			if r == kept {
				perReplica++
			}
		}
	}
	// kept: kongsync's push duration ×3, pushes ×3, reachable, in sync, load seconds, deferred;
	// KIC's push count ×3, duration ×2, size ×2, broken, last successful; KIC's fallback push
	// count ×2, duration ×2, size ×2, broken, last.
	if perReplica != 27 {
		t.Errorf("%d series for the kept replica, want 27", perReplica)
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A fallback configuration's translation and pushes go to KIC's fallback series, not the
// regular ones, and its plan's time to the cache generation histogram.
func TestKICFallbackMetrics(t *testing.T) {
	p := NewForInstance("i")
	const r = "https://10.0.0.5:8444"
	p.ObserveTranslation(kongsync.TranslationStats{Duration: time.Millisecond})
	p.ObserveTranslation(kongsync.TranslationStats{Duration: 2 * time.Millisecond, Fallback: true, FallbackPlan: 500 * time.Microsecond})
	p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultRejected, RejectedEntities: 3})
	p.ObservePush(kongsync.PushStats{Replica: r, Result: kongsync.ResultAccepted, Bytes: 100, Fallback: true})
	got := families(t, p)
	count := func(name string) (n float64) {
		for _, m := range got[name].GetMetric() {
			n += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
		return n
	}
	for name, want := range map[string]float64{
		MetricTranslationCount: 1, MetricFallbackTranslationCount: 1,
		MetricTranslationDuration: 1, MetricFallbackTranslationDuration: 1, MetricFallbackCacheGenerationDuration: 1,
		MetricConfigPushCount: 1, MetricFallbackConfigPushCount: 1,
	} {
		if n := count(name); n != want {
			t.Errorf("%s: %v observations, want %v", name, n, want)
		}
	}
	if h := got[MetricFallbackCacheGenerationDuration].GetMetric()[0].GetHistogram(); h.GetSampleSum() != 0.5 {
		t.Errorf("cache generation = %v ms, want 0.5", h.GetSampleSum())
	}
	if m := got[MetricConfigPushBrokenResources].GetMetric()[0]; m.GetGauge().GetValue() != 3 {
		t.Errorf("regular push broken resources = %v, want 3 (the rejected full configuration)", m.GetGauge().GetValue())
	}
	if m := got[MetricFallbackConfigPushSize].GetMetric()[0]; m.GetGauge().GetValue() != 100 || labelValue(m, labelSuccess) != "true" {
		t.Errorf("fallback push size %v", m)
	}
}
