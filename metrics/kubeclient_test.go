package metrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
)

// roundTrip answers every request with an empty NamespaceList, as an API server would.
type roundTrip struct{}

func (roundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}`
	return &http.Response{StatusCode: http.StatusOK, Request: r, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body))}, nil
}

// A client-go request and a named work queue show up on /metrics under controller-runtime's
// names, as KIC serves them, in every registry the process KubeClient is registered in. The
// collectors are the process's, so the host and queue names are new in every run (-count=N).
func TestKubeClientMetricsScraped(t *testing.T) {
	run := time.Now().UnixNano()
	host, queue := fmt.Sprintf("api%d.example:6443", run), fmt.Sprintf("test-queue-%d", run)
	p, other := NewForInstance("test"), NewForInstance("other")
	p.Registry.MustRegister(ProcessKubeClient().Collectors()...)
	other.Registry.MustRegister(ProcessKubeClient().Collectors()...)

	client, err := kubernetes.NewForConfig(&rest.Config{Host: "https://" + host, Transport: roundTrip{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig( // An hour's delay: the retried item is not added back during the test.
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Hour, time.Hour),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: queue})
	defer q.ShutDown()
	q.Add("a")
	item, _ := q.Get()
	q.Done(item)
	q.AddRateLimited("b")

	for _, reg := range []*Prometheus{p, other} {
		rec := httptest.NewRecorder()
		MetricsHandler(reg.Registry).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		out := rec.Body.String()
		for _, want := range []string{
			`rest_client_requests_total{code="200",host="` + host + `",method="GET"} 1`,
			`workqueue_adds_total{controller="` + queue + `",name="` + queue + `"} 1`,
			`workqueue_depth{controller="` + queue + `",name="` + queue + `",priority=""} 0`,
			`workqueue_retries_total{controller="` + queue + `",name="` + queue + `"} 1`,
			`workqueue_queue_duration_seconds_count{controller="` + queue + `",name="` + queue + `"} 1`,
			`workqueue_work_duration_seconds_count{controller="` + queue + `",name="` + queue + `"} 1`,
			`# TYPE workqueue_unfinished_work_seconds gauge`,
			`# TYPE workqueue_longest_running_processor_seconds gauge`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	}
}
