package gateway

import (
	"testing"

	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// TestRoutesServeEveryMethod checks the method map: every client→gateway
// method the protos declare has a handler, the gateway's own methods are
// answered locally and all others are relayed to the engine, and nothing
// else (server requests, events) is served.
func TestRoutesServeEveryMethod(t *testing.T) {
	rs, err := newRoutes()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range gatewayv1.Methods {
		r := rs.byName[m.Name]
		if m.Direction != gatewayv1.Direction_DIRECTION_CLIENT_TO_SERVER || m.Event {
			if r != nil {
				t.Errorf("routes[%s] is served, want it absent (%s, event %v)", m.Name, m.Direction, m.Event)
			}
			continue
		}
		_, local := localHandlers[m.Name]
		switch {
		case r == nil || r.handle == nil:
			t.Errorf("routes[%s] has no handler", m.Name)
		case local && r.relay != nil:
			t.Errorf("routes[%s] relays to the engine field %s, want it answered by the gateway", m.Name, r.relay.Name())
		case !local && r.relay == nil:
			t.Errorf("routes[%s] relays nowhere, want a SessionCall field", m.Name)
		}
	}
	for _, name := range []string{gatewayv1.MethodRpcDiscover, gatewayv1.MethodSystemStatus, gatewayv1.MethodCancelRequest} {
		if _, ok := localHandlers[name]; !ok {
			t.Errorf("localHandlers[%s] is missing, want the gateway to answer it", name)
		}
	}
}
