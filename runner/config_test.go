package runner

import (
	"testing"

	"k8s.io/client-go/rest"
)

// The client rate limit comes from the config's --apiserver-qps/--apiserver-burst; a config
// without them (zero) keeps what an explicit rest.Config says, else KIC's defaults.
func TestRestConfigRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		qps   float32
		burst int
	}{
		{"defaults", Config{RestConfig: &rest.Config{}, APIServerQPS: 100, APIServerBurst: 300}, 100, 300},
		{"flags win over rest.Config", Config{RestConfig: &rest.Config{QPS: 5, Burst: 6}, APIServerQPS: 20, APIServerBurst: 40}, 20, 40},
		{"rest.Config kept without flags", Config{RestConfig: &rest.Config{QPS: -1}}, -1, 0},
		{"unset everywhere", Config{RestConfig: &rest.Config{}}, 100, 300},
		{"burst at least 1", Config{RestConfig: &rest.Config{}, APIServerQPS: 3}, 3, 1},
	} {
		rc, err := restConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rc.QPS != tc.qps || rc.Burst != tc.burst {
			t.Errorf("%s: qps %v burst %d, want %v %d", tc.name, rc.QPS, rc.Burst, tc.qps, tc.burst)
		}
	}
}
