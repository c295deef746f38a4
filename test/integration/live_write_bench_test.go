//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"testing"
	"time"
)

// BenchmarkLiveWriteToPost measures API write → POST /config at the double, one update at a time
// of an Ingress, or of an HTTPRoute with KONGSYNC_BENCH_KIND=httproute, waiting for each push: KONGSYNC_BENCH_CHANGES (default 200) changes per round.
// KONGSYNC_BENCH_VARIANTS and KONGSYNC_BENCH_ROUNDS compare binaries side by side on the one
// cluster, as for BenchmarkLiveStart10k: each round runs every variant in turn.
func BenchmarkLiveWriteToPost(b *testing.B) {
	n := liveCluster(b)
	liveBinary(b)
	changes := envInt("KONGSYNC_BENCH_CHANGES", 200)
	runVariants[writeToPostResult](b, func(v liveVariant, _ int) writeToPostResult {
		return writeToPostOnce(b, n, v, changes)
	})
}

// writeToPostResult accumulates one variant's latencies (ms) and kongsync's own view of them.
type writeToPostResult struct {
	lat, api, ctrl []float64
	builds, heard  bucketCounts
	gcCycles       float64
}

func (r *writeToPostResult) add(o writeToPostResult) {
	r.lat, r.api, r.ctrl = append(r.lat, o.lat...), append(r.api, o.api...), append(r.ctrl, o.ctrl...)
	r.builds, r.heard = r.builds.plus(o.builds), r.heard.plus(o.heard)
	r.gcCycles += o.gcCycles
}

func (r *writeToPostResult) report(b *testing.B) {
	b.ReportMetric(percentile(r.lat, 50), "p50-ms")
	b.ReportMetric(percentile(r.lat, 99), "p99-ms")
	b.ReportMetric(percentile(r.lat, 100), "max-ms")
	b.ReportMetric(float64(len(r.lat)), "changes")
	b.ReportMetric(percentile(r.api, 50), "api-p50-ms")
	b.ReportMetric(percentile(r.api, 99), "api-p99-ms")
	b.ReportMetric(percentile(r.ctrl, 50), "after-delivery-p50-ms")
	b.ReportMetric(percentile(r.ctrl, 99), "after-delivery-p99-ms")
	// kongsync's own view over the same changes: its builds (snapshot, translation, encoding,
	// md5) and its GC cycles.
	b.ReportMetric(r.builds.quantile(0.5)*1000, "build-p50-le-ms")
	b.ReportMetric(r.builds.quantile(0.99)*1000, "build-p99-le-ms")
	b.ReportMetric(r.gcCycles, "gc-cycles")
	// From the moment kongsync heard of the change (its informer's Notify) to the POST: what
	// after-delivery adds to it is the informer's own delivery and decoding.
	b.ReportMetric(r.heard.quantile(0.5)*1000, "heard-to-post-p50-le-ms")
	b.ReportMetric(r.heard.quantile(0.99)*1000, "heard-to-post-p99-le-ms")
	b.ReportMetric(0, "ns/op")
}

// writeToPostOnce starts one kongsync of variant v, waits for its first complete push, then
// times changes updates of the loaded kind's objects (a new path) one after the other. KONGSYNC_BENCH_HARNESS_GC=1 collects the
// benchmark process's garbage (the double's) before each change, outside the timed interval.
//
// What is timed is a change in a quiet cluster. Each change follows the previous POST as soon as
// the double has answered it (its validation of a 10k config takes ~2.3 s), so with pacing by
// cost (docs/sync.md, "Pacing") it would wait 4 × that: the bench runs kongsync with
// CONTROLLER_KONG_LOAD_BUDGET=1, which turns that pacing off and leaves the quiet path as it is
// with the default budget once a load's rest is over. KONGSYNC_BENCH_PACED=1 keeps the default
// budget and waits out each rest before the next change instead (about 5× longer).
func writeToPostOnce(b *testing.B, n int, v liveVariant, changes int) writeToPostResult {
	harnessGC := os.Getenv("KONGSYNC_BENCH_HARNESS_GC") == "1"
	paced := os.Getenv("KONGSYNC_BENCH_PACED") == "1"
	env := v.env
	if !paced {
		env = append([]string{"CONTROLLER_KONG_LOAD_BUDGET=1"}, v.env...)
	}
	metricsAddr := freeAddr(b)
	p := startLiveWith(b, v.bin, env, "--metrics-bind-address="+metricsAddr)
	defer p.stop()
	p.waitComplete(b, n)
	ctx, cancelWatch := context.WithCancel(context.Background())
	defer cancelWatch()
	before := scrape(b, metricsAddr)
	// The benchmark's own watch shows when the API server delivers each change to a watcher,
	// which splits the latency into the API server's part and kongsync's (window included).
	seen := watchVersions(b, ctx)
	var r writeToPostResult
	var last string
	for k := range changes {
		write, err := liveRoutes.pathWriter(ctx, routeName(k%n))
		if err != nil {
			b.Fatal(err)
		}
		path := fmt.Sprintf("/w%d-%d", time.Now().UnixNano(), k)
		last = path
		if paced {
			waitQuiet(p.double, 0)
		}
		p.double.ResetRequests()
		if harnessGC {
			goruntime.GC()
		}
		t0 := time.Now()
		rv, err := write(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		if err := p.double.WaitPosts(wctx, 1); err != nil {
			b.Fatal(err)
		}
		delivered := seen.at(wctx, b, rv)
		cancel()
		post := p.double.Posts()[0].Start
		r.lat = append(r.lat, ms(post.Sub(t0)))
		r.api, r.ctrl = append(r.api, ms(delivered.Sub(t0))), append(r.ctrl, ms(post.Sub(delivered)))
	}
	// The POSTs timed were the changes': the last one's path is in the config Kong holds.
	if _, marked := services(p.double, last); changes > 0 && marked != 1 {
		b.Fatalf("the last change's path %s is on %d routes in the double's config, want 1", last, marked)
	}
	after := scrape(b, metricsAddr)
	r.builds = after.histogramDelta(before, "kongsync_translation_duration_seconds_bucket")
	r.heard = after.histogramDelta(before, "kongsync_change_to_post_seconds_bucket")
	r.gcCycles = after.value("go_gc_duration_seconds_count") - before.value("go_gc_duration_seconds_count")
	return r
}
