package gateway

import (
	"encoding/json"
	"errors"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
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
	if msg, meta, ok := rs.decodeFast(r, raw); ok {
		return msg, meta, nil
	}
	return rs.decodeSlow(r, raw)
}

// decodeFast decodes params that break no rule straight from their bytes
// (see contract.DecodeFast); ok false sends the params the slow way, which
// says what is wrong.
func (rs *routes) decodeFast(r *route, raw json.RawMessage) (proto.Message, map[string]any, bool) {
	msg := r.info.Params.ProtoReflect().New().Interface()
	metaJSON, ok := contract.DecodeFast(raw, msg, "_meta")
	if !ok {
		return nil, nil, false
	}
	if r.info.NeedsSession {
		if fd := msg.ProtoReflect().Descriptor().Fields().ByName("session_id"); fd == nil || !msg.ProtoReflect().Has(fd) {
			return nil, nil, false
		}
	}
	if call, ok := msg.(*enginev1.CallToolRequest); ok && !rs.toolArgsDecode(call) {
		return nil, nil, false
	}
	var meta map[string]any
	if metaJSON != nil {
		var m gatewayv1.RequestMeta
		if _, ok := contract.DecodeFast(metaJSON, &m, ""); !ok {
			return nil, nil, false
		}
		meta = map[string]any{}
		m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			meta[string(fd.Name())] = v.String()
			return true
		})
		if id, ok := meta["operation_id"].(string); ok {
			setOperationID(msg, id)
		}
	}
	return msg, meta, true
}

// toolArgsDecode reports whether a tools.call's args decode into its
// tool's args message and break none of its rules (the engine decodes
// them again; this is the gateway's promise of a 4000 for bad args).
func (rs *routes) toolArgsDecode(call *enginev1.CallToolRequest) bool {
	t, ok := rs.tools[call.GetTool()]
	if !ok {
		return true // the engine answers unknown_tool as a result
	}
	args := call.ArgsJson
	if args == nil {
		args = []byte("{}")
	}
	_, ok = contract.DecodeFast(args, t.ProtoReflect().New().Interface(), "")
	return ok
}

// decodeSlow is the generic way: the params as a generic value, checked
// against the method's schema, then decoded.
func (rs *routes) decodeSlow(r *route, raw json.RawMessage) (proto.Message, map[string]any, error) {
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
	// What the schema cannot say (a number too large for a float64): the
	// args decode into the tool's message.
	var viol *contract.Violation
	if err := contract.Decode(args, rs.tools[name].ProtoReflect().New().Interface()); errors.As(err, &viol) {
		viol.Path = "/args" + viol.Path
		return viol
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
