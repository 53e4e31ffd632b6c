package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cadbridge/cadbridge/contract"
)

// decodeResult decodes a call's result into result: a proto.Message with
// contract.Unmarshal (strictly: an unknown field is an error), a
// *json.RawMessage as it came, or nothing when result is nil. cadctl reads
// results into the generated message of each method's result
// ([gatewayv1.MethodInfo.Result]), with the codec the gateway writes them
// with; --json prints a result exactly as received.
func decodeResult(raw json.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = raw
		return nil
	case proto.Message:
		if err := contract.Unmarshal(raw, r); err != nil {
			return fmt.Errorf("result: %w", err)
		}
		return nil
	}
	return fmt.Errorf("cadctl: cannot decode a result into %T", result)
}

// wireJSON is m as wire JSON. For a message decoded from the gateway's
// JSON it is what the gateway sent, which wrote it with the same codec.
func wireJSON(m proto.Message) json.RawMessage {
	data, err := contract.Marshal(m)
	if err != nil {
		// Only NaN and infinities fail, which JSON cannot have carried.
		return json.RawMessage("null")
	}
	return data
}

// wireName is an enum value's wire name ("completed").
func wireName(e protoreflect.Enum) string {
	ev := e.Descriptor().Values().ByNumber(e.Number())
	if ev == nil {
		return strconv.Itoa(int(e.Number()))
	}
	return contract.EnumName(ev)
}

// wireTime is a timestamp as the wire writes it (RFC 3339, UTC); empty for
// none.
func wireTime(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return ""
	}
	var s string
	json.Unmarshal(wireJSON(ts), &s)
	return s
}
