package gateway

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

func TestCheckerCatchesViolations(t *testing.T) {
	c, err := newChecker()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.result(gatewayv1.MethodDocumentGet, []byte(`{"document_id":"doc-1","name":"n","units":"mm","revision":1,"content_hash":"h","entity_count":0,"current_layer":"0"}`)); err != nil {
		t.Errorf("valid document info: %v", err)
	}
	if err := c.result(gatewayv1.MethodDocumentGet, []byte(`{"document_id":"doc-1","bogus":true}`)); err == nil {
		t.Errorf("result with an unknown field and missing fields = nil error, want a violation")
	}
	payload, _ := structpb.NewStruct(map[string]any{"operation_id": "op", "step": "three", "total": 3})
	ev := &enginev1.Event{SessionId: "s", Seq: 1, Type: gatewayv1.EventBatchProgress, Payload: payload}
	if err := c.sent(gatewayv1.MethodEvent, []byte(`{"session_id":"s","seq":1,"type":"`+gatewayv1.EventBatchProgress+`","payload":{}}`), ev); err == nil {
		t.Errorf("event with a payload of the wrong type = nil error, want a violation")
	}
	ev.Type = "no.such.event"
	if err := c.sent(gatewayv1.MethodEvent, []byte(`{"session_id":"s","seq":1,"type":"no.such.event","payload":{}}`), ev); err == nil {
		t.Errorf("undeclared event type = nil error, want a violation")
	}
}
