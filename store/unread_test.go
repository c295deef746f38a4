package store

import (
	"strings"
	"testing"
)

// TestUnreadKindsAreNotRead: a kind that gains a store Kind (and so is translated) must leave
// UnreadKinds, or kongsync would report as ignored a kind it reads.
func TestUnreadKindsAreNotRead(t *testing.T) {
	read := map[string]bool{}
	for _, k := range Kinds {
		read[string(k)] = true
	}
	gated := map[string]bool{string(KindKongServiceFacade): true, string(KindKongCustomEntity): true}
	for _, alpha := range []bool{false, true} {
		for _, facade := range []bool{false, true} {
			for _, custom := range []bool{false, true} {
				for _, u := range UnreadKinds(alpha, facade, custom) {
					if read[u.Kind] && !isGatewayAlpha(u.Kind) && !gated[u.Kind] {
						t.Errorf("%s is a store kind but listed as not read", u.Kind)
					}
				}
			}
		}
	}
}

// TestFacadeGate: KongServiceFacade is unread exactly while its gate is off, and the manifest
// gate drops facades with one note then.
func TestFacadeGate(t *testing.T) {
	has := func(us []UnreadKind) bool {
		for _, u := range us {
			if u.Kind == string(KindKongServiceFacade) {
				return true
			}
		}
		return false
	}
	if !has(UnreadKinds(false, false, true)) || has(UnreadKinds(true, true, true)) {
		t.Error("KongServiceFacade must be unread with its gate off only")
	}
	objs, _, err := DecodeManifests("t", strings.NewReader(`apiVersion: incubator.ingress-controller.konghq.com/v1alpha1
kind: KongServiceFacade
metadata: {name: f, namespace: default}
spec: {backendRef: {name: svc, port: 80}}
`))
	if err != nil || len(objs) != 1 {
		t.Fatalf("decode: %v %+v", err, objs)
	}
	if out, notes := GateFacades(objs, true); len(out) != 1 || notes != nil {
		t.Errorf("gate on: %d objects, notes %v", len(out), notes)
	}
	if out, notes := GateFacades(objs, false); len(out) != 0 || len(notes) != 1 {
		t.Errorf("gate off: %d objects, notes %v", len(out), notes)
	}
}

func isGatewayAlpha(kind string) bool {
	for _, k := range GatewayAlphaKinds() {
		if string(k) == kind {
			return true
		}
	}
	return false
}

// TestCustomEntityGate: KongCustomEntity is unread exactly while its gate is off, and the
// manifest gate drops custom entities with one note then.
func TestCustomEntityGate(t *testing.T) {
	has := func(us []UnreadKind) bool {
		for _, u := range us {
			if u.Kind == string(KindKongCustomEntity) {
				return true
			}
		}
		return false
	}
	if !has(UnreadKinds(true, true, false)) || has(UnreadKinds(false, false, true)) {
		t.Error("KongCustomEntity must be unread with its gate off only")
	}
	objs, _, err := DecodeManifests("t", strings.NewReader(`apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: ce, namespace: default}
spec: {type: degraphql_routes, controllerName: kong, fields: {uri: /a, query: q}}
`))
	if err != nil || len(objs) != 1 {
		t.Fatalf("decode: %v %+v", err, objs)
	}
	if out, notes := GateCustomEntities(objs, true); len(out) != 1 || notes != nil {
		t.Errorf("gate on: %d objects, notes %v", len(out), notes)
	}
	out, notes := GateCustomEntities(objs, false)
	if len(out) != 0 || len(notes) != 1 || !strings.Contains(notes[0].Msg, "KongCustomEntity feature gate is off") {
		t.Errorf("gate off: %d objects, notes %v", len(out), notes)
	}
}
