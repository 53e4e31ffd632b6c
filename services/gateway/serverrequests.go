package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// serverMethod is a server request the gateway relays from the engine to the
// client: its declared result type and schema, and the answer frame's field
// that carries that result to the engine.
type serverMethod struct {
	info   gatewayv1.MethodInfo
	result *contract.Schema
	answer protoreflect.FieldDescriptor
}

func newServerMethods() (map[string]*serverMethod, error) {
	answerFields := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	oneof := (&enginev1.ServerRequestAnswer{}).ProtoReflect().Descriptor().Oneofs().ByName("result")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		answerFields[fd.Message().FullName()] = fd
	}
	methods := map[string]*serverMethod{}
	for _, m := range gatewayv1.Methods {
		if m.Direction != gatewayv1.Direction_DIRECTION_SERVER_TO_CLIENT || m.Notification {
			continue
		}
		schema, err := contract.CompileSchema(m.Name+".result", m.ResultSchema)
		if err != nil {
			return nil, err
		}
		field := answerFields[m.Result.ProtoReflect().Descriptor().FullName()]
		if field == nil {
			return nil, fmt.Errorf("server request %s: no ServerRequestAnswer field carries %s", m.Name, m.Result.ProtoReflect().Descriptor().FullName())
		}
		methods[m.Name] = &serverMethod{info: m, result: schema, answer: field}
	}
	return methods, nil
}

// relayServerRequest sends the engine's server request to the client and
// the client's answer back to the engine. It returns when the client
// answers, the request is withdrawn (ctx), or the connection ends.
func (c *clientConn) relayServerRequest(ctx context.Context, sr *enginev1.ServerRequest) {
	rpc := c.rpc.Load()
	m := c.gw.serverMethods[sr.GetMethod()]
	if rpc == nil || m == nil {
		return // the engine sends only methods the session declared
	}
	params := sr.ProtoReflect()
	set := params.WhichOneof(params.Descriptor().Oneofs().ByName("params"))
	if set == nil {
		return
	}
	data, err := contract.Marshal(params.Get(set).Message().Interface())
	if err != nil {
		c.gw.log.Error("encode server request", "id", sr.GetId(), "error", err)
		return
	}
	data = withMeta(data, sr.GetTraceContext())
	if c.gw.check != nil {
		if err := c.gw.check.sent(sr.GetMethod(), data, nil); err != nil {
			c.gw.log.Error("contract violation", "method", sr.GetMethod(), "error", err)
			return
		}
	}
	c.gw.obs.serverReqOpen.Add(ctx, 1)
	defer c.gw.obs.serverReqOpen.Add(context.WithoutCancel(ctx), -1)
	var raw json.RawMessage
	err = rpc.Call(ctx, jsonrpc.StringID(sr.GetId()), sr.GetMethod(), json.RawMessage(data), &raw)
	if ctx.Err() != nil {
		return // withdrawn: a late answer is ignored
	}
	c.answer(sr.GetId(), m, raw, err)
}

// answer forwards a client's answer (result or error) to the engine.
func (c *clientConn) answer(id string, m *serverMethod, raw json.RawMessage, callErr error) {
	answer := &enginev1.ServerRequestAnswer{Id: id}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(callErr, &rpcErr):
		answer.Result = &enginev1.ServerRequestAnswer_Error{Error: answerStatus(rpcErr).Proto()}
	case callErr != nil:
		return // the connection ended; the request stays open for a resume
	default:
		result, err := decodeAnswer(m, raw)
		if err != nil {
			answer.Result = &enginev1.ServerRequestAnswer_Error{Error: status.New(codes.InvalidArgument, err.Error()).Proto()}
		} else {
			answer.ProtoReflect().Set(m.answer, protoreflect.ValueOfMessage(result.ProtoReflect()))
		}
	}
	c.mu.Lock()
	stream := c.stream
	c.mu.Unlock()
	if stream == nil {
		return
	}
	if err := stream.send(&enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Answer{Answer: answer}}); err != nil {
		c.gw.log.Debug("forward answer", "id", id, "error", err)
	}
}

func decodeAnswer(m *serverMethod, raw json.RawMessage) (proto.Message, error) {
	v, err := contract.ParseJSON(raw)
	if err != nil {
		return nil, err
	}
	if violation := m.result.Validate(v); violation != nil {
		return nil, violation
	}
	msg := m.info.Result.ProtoReflect().New().Interface()
	return msg, contract.Decode(v, msg)
}

// withMeta adds "_meta" with the trace context to encoded params, so the
// client can continue the engine's trace.
func withMeta(params []byte, traceContext map[string]string) []byte {
	if len(traceContext) == 0 || len(params) < 2 {
		return params
	}
	m, err := json.Marshal(traceContext)
	if err != nil {
		return params
	}
	out := append([]byte(`{"_meta":`), m...)
	if string(params) != "{}" {
		out = append(out, ',')
	}
	return append(out, params[1:]...)
}
