package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// The engine's server requests as MCP elicitations (form mode): each
// method's question, the flat schema of the answer (elicitation schemas
// allow only primitive properties), and how the user's answer becomes the
// method's result, exactly as a /rpc client would have answered.

// elicitation is the form that asks the user a server request.
func elicitation(sr *enginev1.ServerRequest) *mcpsdk.ElicitParams {
	switch p := sr.GetParams().(type) {
	case *enginev1.ServerRequest_Approval:
		a := p.Approval
		msg := fmt.Sprintf("Approve %s? %s", a.GetTool(), a.GetSummary())
		if hs := a.GetAffected().GetHandles(); len(hs) > 0 {
			msg += fmt.Sprintf(" (%d entities: %s)", a.GetAffected().GetCount(), strings.Join(hs, ", "))
		}
		return &mcpsdk.ElicitParams{
			Mode:    "form",
			Message: msg,
			RequestedSchema: object(map[string]any{
				"decision": map[string]any{"type": "string", "title": "Decision", "enum": []string{"approve", "deny"}, "description": "approve lets the step run; deny makes it fail denied"},
			}, "decision"),
		}
	case *enginev1.ServerRequest_PickPoint:
		msg := p.PickPoint.GetPrompt()
		if b := p.PickPoint.GetBase(); b != nil {
			msg += fmt.Sprintf(" (from %g, %g)", b.GetX(), b.GetY())
		}
		return &mcpsdk.ElicitParams{
			Mode:    "form",
			Message: orDefault(msg, "Pick a point"),
			RequestedSchema: object(map[string]any{
				"x": map[string]any{"type": "number", "title": "X"},
				"y": map[string]any{"type": "number", "title": "Y"},
			}, "x", "y"),
		}
	case *enginev1.ServerRequest_PickEntities:
		pe := p.PickEntities
		msg := orDefault(pe.GetPrompt(), "Pick entities")
		if pe.Max != nil {
			msg += fmt.Sprintf(" (at most %d)", pe.GetMax())
		}
		return &mcpsdk.ElicitParams{
			Mode:    "form",
			Message: msg,
			RequestedSchema: object(map[string]any{
				"handles": map[string]any{"type": "string", "title": "Handles", "description": "entity handles, separated by commas or spaces"},
			}, "handles"),
		}
	}
	return &mcpsdk.ElicitParams{Mode: "form", Message: "The engine asks: " + sr.GetMethod()}
}

func object(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// errDeclined answers a pick the user declined or cancelled: the step
// fails, as it does when a /rpc client answers with an error.
var errDeclined = jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), "the user declined")

// answerOf turns the user's answer to the elicitation of sr into the
// server request's result (wire JSON) or the error a /rpc client would
// have answered. An approval declined or cancelled is a deny; a pick
// declined or cancelled is an error; a client that cannot elicit
// (method not found) makes the step unsupported, as on /rpc.
func answerOf(sr *enginev1.ServerRequest, res *mcpsdk.ElicitResult, callErr error) (json.RawMessage, *jsonrpc.Error) {
	if callErr != nil {
		var wire *sdkjsonrpc.Error
		if errors.As(callErr, &wire) && wire.Code == sdkjsonrpc.CodeMethodNotFound {
			return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND), wire.Message)
		}
		return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), "elicitation failed: "+callErr.Error())
	}
	accepted := res != nil && res.Action == "accept"
	switch sr.GetParams().(type) {
	case *enginev1.ServerRequest_Approval:
		d := enginev1.Decision_DECISION_DENY
		if accepted {
			d = enginev1.Decision_DECISION_APPROVE
			if v, ok := res.Content["decision"].(string); ok && v != "approve" {
				d = enginev1.Decision_DECISION_DENY
			}
		}
		return marshal(&enginev1.ApprovalResult{Decision: d})
	case *enginev1.ServerRequest_PickPoint:
		if !accepted {
			return nil, errDeclined
		}
		x, okx := number(res.Content["x"])
		y, oky := number(res.Content["y"])
		if !okx || !oky {
			return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS), "the answer has no x and y")
		}
		return marshal(&enginev1.PickPointResult{X: x, Y: y})
	case *enginev1.ServerRequest_PickEntities:
		if !accepted {
			return nil, errDeclined
		}
		s, _ := res.Content["handles"].(string)
		handles := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == ';' })
		return marshal(&enginev1.PickEntitiesResult{Handles: handles})
	}
	return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND), "no elicitation for "+sr.GetMethod())
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func marshal(m proto.Message) (json.RawMessage, *jsonrpc.Error) {
	data, err := contract.Marshal(m)
	if err != nil {
		return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), err.Error())
	}
	return data, nil
}
