//go:build integration

package integration

import (
	"context"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
)

// Helpers of BenchmarkLiveWriteToPost: kongsync's /metrics scraped around the changes, and the
// benchmark's own watch timing the API server's delivery of each change.

// promSample is one scrape of a Prometheus text endpoint: series line → value.
type promSample map[string]float64

func scrape(b *testing.B, addr string) promSample {
	b.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	out := promSample{}
	for _, line := range strings.Split(string(body), "\n") {
		if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				out[line[:i]] = v
			}
		}
	}
	return out
}

func (s promSample) value(series string) float64 { return s[series] }

// bucketCounts are a histogram's cumulative counts by upper bound.
type bucketCounts []struct{ le, n float64 }

// histogramDelta is the histogram name's buckets in s minus those in base.
func (s promSample) histogramDelta(base promSample, name string) bucketCounts {
	var out bucketCounts
	for series, v := range s {
		rest, ok := strings.CutPrefix(series, name+`{le="`)
		if !ok {
			continue
		}
		le, err := strconv.ParseFloat(strings.TrimSuffix(rest, `"}`), 64)
		if err != nil {
			continue // +Inf
		}
		out = append(out, struct{ le, n float64 }{le, v - base[series]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].le < out[j].le })
	return out
}

// quantile is the upper bound of the bucket holding quantile q (0 without observations).
func (c bucketCounts) quantile(q float64) float64 {
	if len(c) == 0 || c[len(c)-1].n == 0 {
		return 0
	}
	for _, bk := range c {
		if bk.n >= q*c[len(c)-1].n {
			return bk.le
		}
	}
	return c[len(c)-1].le
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// objectVersions records when a watch saw each resourceVersion of the loaded kind's objects.
type objectVersions struct {
	mu   sync.Mutex
	seen map[string]time.Time
	wake chan struct{}
}

// watchVersions watches the loaded kind's objects (liveKind) in the default namespace from now
// on.
func watchVersions(b *testing.B, ctx context.Context) *objectVersions {
	b.Helper()
	w, err := liveRoutes.watchFromNow(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	v := &objectVersions{seen: map[string]time.Time{}, wake: make(chan struct{}, 1)}
	go func() {
		for ev := range w.ResultChan() {
			now := time.Now()
			if o, err := meta.Accessor(ev.Object); err == nil && ev.Type != watch.Error {
				v.mu.Lock()
				v.seen[o.GetResourceVersion()] = now
				v.mu.Unlock()
				select {
				case v.wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	return v
}

// at waits until the watch saw resourceVersion rv and returns when.
func (v *objectVersions) at(ctx context.Context, b *testing.B, rv string) time.Time {
	for {
		v.mu.Lock()
		t, ok := v.seen[rv]
		v.mu.Unlock()
		if ok {
			return t
		}
		select {
		case <-v.wake:
		case <-ctx.Done():
			b.Fatalf("the benchmark's watch never saw resourceVersion %s", rv)
		}
	}
}

// plus adds two deltas of the same histogram (either may be empty).
func (c bucketCounts) plus(o bucketCounts) bucketCounts {
	if len(c) == 0 {
		return o
	}
	out := append(bucketCounts(nil), c...)
	for i := range out {
		if i < len(o) && o[i].le == out[i].le {
			out[i].n += o[i].n
		}
	}
	return out
}
