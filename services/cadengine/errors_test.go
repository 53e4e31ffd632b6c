package cadengine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// TestEveryReasonCrossesAsDeclared walks every ErrorReason: an engine
// error of that reason leaves the engine with the gRPC code the protos
// declare and an ErrorInfo naming the reason.
func TestEveryReasonCrossesAsDeclared(t *testing.T) {
	values := enginev1.ErrorReason(0).Descriptor().Values()
	for i := range values.Len() {
		r := enginev1.ErrorReason(values.Get(i).Number())
		if r == enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED {
			continue
		}
		info, ok := enginev1.LookupReason(r)
		if !ok {
			t.Errorf("reason %v has no declared codes", r)
			continue
		}
		err := fmt.Errorf("while testing: %w", engine.NewError(r, errors.New("it failed")))
		if got := engine.ReasonOf(err); got != r {
			t.Errorf("ReasonOf(%v error) = %v", r, got)
		}
		s := toStatus(err)
		if s.Code() != info.GRPCCode || s.Message() != "while testing: it failed" {
			t.Errorf("toStatus(%v error) = %v %q, want %v %q", r, s.Code(), s.Message(), info.GRPCCode, "while testing: it failed")
		}
		var got string
		for _, d := range s.Details() {
			if ei, ok := d.(*errdetails.ErrorInfo); ok {
				got = ei.GetReason()
			}
		}
		if got != r.String() {
			t.Errorf("toStatus(%v error) ErrorInfo reason = %q, want %q", r, got, r.String())
		}
	}
}

// TestErrorsWithoutReason checks errors the engine does not type: a
// context's ends as gRPC's own statuses do, anything else is internal.
func TestErrorsWithoutReason(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want codes.Code
	}{
		{context.Canceled, codes.Canceled},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), codes.DeadlineExceeded},
		{errors.New("a bug"), codes.Internal},
	} {
		s := toStatus(tt.err)
		if s.Code() != tt.want || len(s.Details()) != 0 {
			t.Errorf("toStatus(%v) = %v with %d details, want %v without", tt.err, s.Code(), len(s.Details()), tt.want)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", engine.NewError(enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, errors.New("gone"))), engine.ErrNotFound) {
		t.Error("an error of reason DOCUMENT_NOT_FOUND is not engine.ErrNotFound under errors.Is")
	}
}
