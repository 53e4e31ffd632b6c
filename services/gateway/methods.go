package gateway

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// route is how the gateway serves one client→gateway method of the
// generated table: validated against its params schema, then either relayed
// to the engine as the SessionCall field whose type is the params message,
// or answered by the gateway itself.
type route struct {
	info   gatewayv1.MethodInfo
	params *contract.Schema
	// relay is the SessionCall.request field carrying the params; nil for
	// methods the gateway answers itself.
	relay protoreflect.FieldDescriptor
}

// routes is the method table the gateway serves, built from
// gatewayv1.Methods at start-up.
type routes struct {
	byName map[string]*route
	// toolArgs validates tools.call args per tool.
	toolArgs map[string]*contract.Schema
}

// localMethods are answered by the gateway, not relayed.
var localMethods = map[string]bool{
	gatewayv1.MethodRpcDiscover:   true,
	gatewayv1.MethodSystemStatus:  true,
	gatewayv1.MethodCancelRequest: true,
}

func newRoutes() (*routes, error) {
	relayFields := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	oneof := (&enginev1.SessionCall{}).ProtoReflect().Descriptor().Oneofs().ByName("request")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		relayFields[fd.Message().FullName()] = fd
	}
	rs := &routes{byName: map[string]*route{}, toolArgs: map[string]*contract.Schema{}}
	for _, m := range gatewayv1.Methods {
		if m.Direction != gatewayv1.Direction_DIRECTION_CLIENT_TO_SERVER || m.Event {
			continue
		}
		schema, err := contract.CompileSchema(m.Name, m.ParamsSchema)
		if err != nil {
			return nil, err
		}
		r := &route{info: m, params: schema}
		if !localMethods[m.Name] {
			r.relay = relayFields[m.Params.ProtoReflect().Descriptor().FullName()]
			if r.relay == nil {
				return nil, fmt.Errorf("method %s: no SessionCall field carries %s", m.Name, m.Params.ProtoReflect().Descriptor().FullName())
			}
		}
		rs.byName[m.Name] = r
	}
	for _, t := range enginev1.Tools {
		schema, err := contract.CompileSchema(t.Name, t.InputSchema)
		if err != nil {
			return nil, err
		}
		rs.toolArgs[t.Name] = schema
	}
	return rs, nil
}
