package v1

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDeepCopyIsIndependent(t *testing.T) {
	c := &KongConsumer{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"x": "1"}},
		Credentials: []string{"s"}, Spec: KongConsumerSpec{Tags: []string{"t"}}}
	d := c.DeepCopyObject().(*KongConsumer)
	d.Credentials[0], d.Spec.Tags[0], d.Labels["x"] = "changed", "changed", "changed"
	if c.Credentials[0] != "s" || c.Spec.Tags[0] != "t" || c.Labels["x"] != "1" {
		t.Fatalf("copy shares memory with the original: %+v", c)
	}
	p := &KongPlugin{PluginFields: PluginFields{PluginName: "key-auth", Config: json.RawMessage(`{"a":1}`), Protocols: []string{"http"}}}
	q := p.DeepCopy()
	q.Config[2], q.Protocols[0] = 'b', "grpc"
	if string(p.Config) != `{"a":1}` || p.Protocols[0] != "http" {
		t.Fatalf("plugin copy shares memory: %s %v", p.Config, p.Protocols)
	}
	k := &KongClusterPlugin{PluginFields: PluginFields{Config: json.RawMessage(`{}`)}}
	if k.DeepCopyObject().(*KongClusterPlugin) == k {
		t.Fatal("copy must be a new object")
	}
}

func TestJSONShapeMatchesCRD(t *testing.T) {
	var c KongConsumer
	in := `{"apiVersion":"configuration.konghq.com/v1","kind":"KongConsumer","metadata":{"name":"c"},"username":"u","custom_id":"id","credentials":["s"],"consumerGroups":["g"],"spec":{"tags":["t"]}}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.Username != "u" || c.CustomID != "id" || c.Credentials[0] != "s" || c.ConsumerGroups[0] != "g" || c.Spec.Tags[0] != "t" {
		t.Fatalf("decoded %+v", c)
	}
	var p KongPlugin
	if err := json.Unmarshal([]byte(`{"plugin":"rate-limiting","instance_name":"i","config":{"minute":5}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.PluginName != "rate-limiting" || p.InstanceName != "i" || string(p.Config) != `{"minute":5}` {
		t.Fatalf("decoded %+v", p)
	}
}
