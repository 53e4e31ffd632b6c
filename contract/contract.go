// Package contract is cadbridge's JSON wire for protobuf messages: field
// names as in the protos (snake_case), enums by their short lower-case
// names, 64-bit integers as JSON numbers, and strict decoding that reports
// the first violation as an RFC 6901 pointer with a typed reason. The
// generated JSON Schemas (see internal/contractgen) describe exactly this
// encoding, and Schema validates values against them.
package contract

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/wirename"
)

// Reason says how a value breaks its contract; it is the proto enum
// cad.engine.v1.ViolationReason.
type Reason = enginev1.ViolationReason

// The violation reasons.
const (
	ReasonUnknownField = enginev1.ViolationReason_VIOLATION_REASON_UNKNOWN_FIELD
	ReasonWrongType    = enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE
	ReasonMissing      = enginev1.ViolationReason_VIOLATION_REASON_MISSING
	ReasonOutOfRange   = enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE
	ReasonInvalid      = enginev1.ViolationReason_VIOLATION_REASON_INVALID
)

// Violation is a value that breaks its contract.
type Violation struct {
	// Path is an RFC 6901 pointer to the value ("" for the whole value).
	Path string
	// Reason is how it breaks the contract.
	Reason Reason
	// Message is a sentence for people.
	Message string
}

// Error says where the value breaks its contract, and how.
func (v *Violation) Error() string {
	return fmt.Sprintf("%s at %q: %s", ReasonName(v.Reason), v.Path, v.Message)
}

// ReasonName is the wire name of a reason ("unknown_field").
func ReasonName(r Reason) string {
	return EnumName(r.Descriptor().Values().ByNumber(r.Number()))
}

// ReasonByName is the reason with wire name name, or ReasonInvalid.
func ReasonByName(name string) Reason {
	values := ReasonInvalid.Descriptor().Values()
	for i := 0; i < values.Len(); i++ {
		if ev := values.Get(i); ev.Number() != 0 && EnumName(ev) == name {
			return Reason(ev.Number())
		}
	}
	return ReasonInvalid
}

// EnumName is the wire name of an enum value ("stale_revision").
func EnumName(ev protoreflect.EnumValueDescriptor) string {
	return wirename.EnumValue(ev)
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}
