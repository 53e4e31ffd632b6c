package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// handler answers one client→gateway call whose params were checked
// against the method's contract and decoded; meta is the call's _meta.
type handler func(c *clientConn, ctx context.Context, params proto.Message, meta map[string]any) (any, error)

// route is how the gateway serves one client→gateway method: its
// generated declaration (name, flags, params and result types), its
// compiled params schema, and its handler — one of localHandlers, or a
// relay to the engine as the SessionCall field whose type is the params
// message.
type route struct {
	info   gatewayv1.MethodInfo
	params *contract.Schema
	handle handler
	// relay is the SessionCall.request field carrying the params; nil for
	// methods the gateway answers itself.
	relay protoreflect.FieldDescriptor
}

// routes is the method table the gateway serves, built from
// gatewayv1.Methods at start-up.
type routes struct {
	// byName is every client→gateway method by wire name: the one map the
	// gateway dispatches calls by.
	byName map[string]*route
	// toolArgs validates tools.call args per tool.
	toolArgs map[string]*contract.Schema
	// tools are the tools' args messages (typed nils), by name.
	tools map[string]proto.Message
}

// localHandlers answer the methods the gateway serves itself, by wire
// name; every other client→gateway method is relayed to the engine.
var localHandlers = map[string]handler{
	gatewayv1.MethodRpcDiscover:   (*clientConn).discover,
	gatewayv1.MethodSystemStatus:  (*clientConn).systemStatus,
	gatewayv1.MethodCancelRequest: (*clientConn).cancelRequest,
}

func newRoutes() (*routes, error) {
	relayFields := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	oneof := (&enginev1.SessionCall{}).ProtoReflect().Descriptor().Oneofs().ByName("request")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		relayFields[fd.Message().FullName()] = fd
	}
	rs := &routes{byName: map[string]*route{}, toolArgs: map[string]*contract.Schema{}, tools: map[string]proto.Message{}}
	for _, m := range gatewayv1.Methods {
		if m.Direction != gatewayv1.Direction_DIRECTION_CLIENT_TO_SERVER || m.Event {
			continue
		}
		schema, err := contract.CompileSchema(m.Name, m.ParamsSchema)
		if err != nil {
			return nil, err
		}
		r := &route{info: m, params: schema, handle: localHandlers[m.Name]}
		if r.handle == nil {
			r.relay = relayFields[m.Params.ProtoReflect().Descriptor().FullName()]
			if r.relay == nil {
				return nil, fmt.Errorf("method %s: no SessionCall field carries %s", m.Name, m.Params.ProtoReflect().Descriptor().FullName())
			}
			r.handle = relayHandler(r)
		}
		rs.byName[m.Name] = r
	}
	for name := range localHandlers {
		if rs.byName[name] == nil {
			return nil, fmt.Errorf("method %s: answered by the gateway but not declared as a client→gateway method", name)
		}
	}
	for _, t := range enginev1.Tools {
		schema, err := contract.CompileSchema(t.Name, t.InputSchema)
		if err != nil {
			return nil, err
		}
		rs.toolArgs[t.Name] = schema
		rs.tools[t.Name] = t.Args
	}
	return rs, nil
}

// relayHandler answers r's calls by relaying them to the engine.
func relayHandler(r *route) handler {
	return func(c *clientConn, ctx context.Context, params proto.Message, meta map[string]any) (any, error) {
		result, release, err := c.relay(ctx, r, params)
		switch {
		case err != nil && errors.Is(context.Cause(ctx), jsonrpc.ErrClosed):
			// The connection is ending before the engine answered (a
			// client that ended its input outlasted the drain timeout):
			// the call's outcome is unknown to it.
			return nil, unavailable("the connection ended before the call did", operationID(params, meta))
		case err != nil:
			return nil, rpcError(err, operationID(params, meta))
		}
		// As contract.Marshal wrote it; a large one is in the codec's
		// buffer until the answer is encoded.
		return jsonrpc.Lent{JSON: result, Return: release}, nil
	}
}

// discover answers rpc.discover with the OpenRPC document.
func (c *clientConn) discover(context.Context, proto.Message, map[string]any) (any, error) {
	return json.RawMessage(gatewayv1.OpenRPC), nil
}

// systemStatus answers system.status: the engine's status and the
// gateway's own.
func (c *clientConn) systemStatus(ctx context.Context, _ proto.Message, _ map[string]any) (any, error) {
	field := (&enginev1.SessionCall{}).ProtoReflect().Descriptor().Fields().ByName("get_system_status")
	resp, err := c.callEngine(ctx, field, &enginev1.GetSystemStatusRequest{})
	if err != nil {
		return nil, rpcError(err, "")
	}
	data, err := contract.Marshal(&gatewayv1.SystemStatusResult{
		Engine:  resp.(*enginev1.GetSystemStatusResponse),
		Gateway: c.gw.status(),
	})
	return json.RawMessage(data), err
}

// cancelRequest answers the $/cancelRequest notification: nothing to do,
// the jsonrpc.Conn cancels the call itself.
func (c *clientConn) cancelRequest(context.Context, proto.Message, map[string]any) (any, error) {
	return nil, nil
}
