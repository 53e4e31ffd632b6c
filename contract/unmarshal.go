package contract

import (
	"errors"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Decoding wire JSON.
//
// Unmarshal reads the bytes once, straight into the message, with the
// message's generated decoder (see package jsonwire): no generic tree, no
// schema walk; field rules are the generated CheckRules. It accepts
// exactly what ParseJSON followed by Decode (and the schema) accepts, and
// produces the same message, but for the form of raw fields (see
// enginev1.JSONOptions): their bytes are the value as the input wrote it,
// without its spaces, where Decode writes the value again with sorted
// keys. At the first thing it does not accept, it stops, and the slow path
// — ParseJSON, the schema when one is given, Decode — runs over the input
// to tell what is wrong, in the same words as before. What the fast path
// leaves to the slow one (invalid UTF-8, lone surrogates, very deep
// nesting, messages without a generated decoder) the slow path decodes.

// Unmarshal decodes wire JSON into m strictly: an unknown key, a wrong
// type, a missing required field, a key given twice or an unknown enum name
// returns a *Violation with the path. It does not check field rules (see
// UnmarshalChecked).
func Unmarshal(data []byte, m proto.Message) error {
	return unmarshal(data, m, nil, false, false)
}

// UnmarshalPartial is Unmarshal without the check for missing required
// fields, for inputs completed afterwards (see DecodePartial).
func UnmarshalPartial(data []byte, m proto.Message) error {
	return unmarshal(data, m, nil, true, false)
}

// UnmarshalChecked is Unmarshal followed by the check of m's field rules
// (ranges, lengths, patterns, value domains: the generated CheckRules).
// A violation is reported as schema, m's JSON Schema, would report it: the
// first by path, with the schema's reason and message.
func UnmarshalChecked(data []byte, m proto.Message, schema *Schema) error {
	return unmarshal(data, m, schema, false, true)
}

func unmarshal(data []byte, m proto.Message, schema *Schema, partial, rules bool) error {
	proto.Reset(m)
	if wm, ok := m.(jsonwire.Message); ok {
		d := decoders.Get().(*jsonwire.Decoder)
		d.Reset(data)
		d.Partial = partial
		ok := wm.UnmarshalWire(d) && d.End()
		decoders.Put(d)
		if ok && (!rules || checkRules(m) == nil) {
			return nil
		}
		proto.Reset(m)
	}
	return slowUnmarshal(data, m, schema, partial, rules)
}

// decoders keeps Decoders (and their scratch space) for reuse.
var decoders = sync.Pool{New: func() any { return new(jsonwire.Decoder) }}

// slowUnmarshal is the way wire JSON was decoded before the fast path,
// kept for telling exactly what is wrong with an input.
func slowUnmarshal(data []byte, m proto.Message, schema *Schema, partial, rules bool) error {
	v, err := ParseJSON(data)
	var violation *Violation
	if errors.As(err, &violation) {
		return violation
	}
	if err != nil {
		return &Violation{Reason: ReasonInvalid, Message: err.Error()}
	}
	if schema != nil {
		if violation := schema.Validate(v); violation != nil {
			return violation
		}
	}
	if partial {
		err = DecodePartial(v, m)
	} else {
		err = Decode(v, m)
	}
	if err != nil || !rules {
		return err
	}
	if rv := checkRules(m); rv != nil {
		// The schema had no objection, but the rules have: the schema was
		// not given, or the two disagree (a test makes sure they do not).
		return &Violation{Path: rv.Path, Reason: rv.Reason, Message: rv.Message}
	}
	return nil
}

// CheckRules reports the first field rule m breaks (see
// enginev1.RuleViolation), or nil; a message without rules breaks none.
func CheckRules(m proto.Message) *Violation {
	if rv := checkRules(m); rv != nil {
		return &Violation{Path: rv.Path, Reason: rv.Reason, Message: rv.Message}
	}
	return nil
}

func checkRules(m proto.Message) *enginev1.RuleViolation {
	type checker interface {
		CheckRules() *enginev1.RuleViolation
	}
	if c, ok := m.(checker); ok {
		return c.CheckRules()
	}
	return nil
}

// DecodeFast decodes data into m with m's generated decoder and checks m's
// field rules, reporting only whether it accepted the input (callers that
// need to know what is wrong decode again the generic way). extra names a
// key the top-level object may have beside m's fields (JSON-RPC's
// "_meta"); its value, as given, is returned, nil when absent.
func DecodeFast(data []byte, m proto.Message, extra string) (extraValue []byte, ok bool) {
	wm, isWire := m.(jsonwire.Message)
	if !isWire {
		return nil, false
	}
	proto.Reset(m)
	d := decoders.Get().(*jsonwire.Decoder)
	d.Reset(data)
	d.Extra = extra
	ok = wm.UnmarshalWire(d) && d.End() && checkRules(m) == nil
	extraValue = d.ExtraValue
	decoders.Put(d)
	return extraValue, ok
}
