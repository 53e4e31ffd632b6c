package gateway

import (
	"encoding/json"
	"errors"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// decode checks raw params against the method's contract and decodes them.
// It returns the params message and the request's _meta. tools.call args
// are checked against the named tool's input schema too, so that a bad
// argument is a 4000 with a pointer into params before anything reaches
// the engine.
func (rs *routes) decode(r *route, raw json.RawMessage) (proto.Message, map[string]any, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	v, err := contract.ParseJSON(raw)
	var violation *contract.Violation
	if errors.As(err, &violation) {
		return nil, nil, invalidParams(violation)
	}
	if err != nil {
		return nil, nil, invalidParams(&contract.Violation{Reason: contract.ReasonInvalid, Message: err.Error()})
	}
	if obj, ok := v.(map[string]any); ok && r.info.NeedsSession {
		if _, has := obj["session_id"]; !has {
			return nil, nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_SESSION_REQUIRED), r.info.Name+" needs session_id")
		}
	}
	if violation := r.params.Validate(v); violation != nil {
		return nil, nil, invalidParams(violation)
	}
	obj := v.(map[string]any) // the schema requires an object
	meta, _ := obj["_meta"].(map[string]any)
	delete(obj, "_meta")
	if r.info.Name == gatewayv1.MethodToolsCall {
		if violation := rs.checkToolArgs(obj); violation != nil {
			return nil, nil, invalidParams(violation)
		}
	}
	msg := r.info.Params.ProtoReflect().New().Interface()
	if err := contract.Decode(obj, msg); err != nil {
		return nil, nil, rpcError(err, "")
	}
	if id, ok := meta["operation_id"].(string); ok {
		setOperationID(msg, id)
	}
	return msg, meta, nil
}

func (rs *routes) checkToolArgs(params map[string]any) *contract.Violation {
	name, _ := params["tool"].(string)
	schema := rs.toolArgs[name]
	if schema == nil {
		return nil // the engine answers unknown_tool as a result
	}
	args, ok := params["args"]
	if !ok {
		args = map[string]any{}
	}
	if v := schema.Validate(args); v != nil {
		v.Path = "/args" + v.Path
		return v
	}
	return nil
}

// setOperationID applies _meta.operation_id to requests that have an
// operation_id field and did not set it themselves.
func setOperationID(msg proto.Message, id string) {
	m := msg.ProtoReflect()
	if fd := m.Descriptor().Fields().ByName("operation_id"); fd != nil && !m.Has(fd) {
		m.Set(fd, protoreflect.ValueOfString(id))
	}
}
