// Package jsonwire is the runtime of the JSON codecs that
// protoc-gen-cadcontract generates for cadbridge's messages: a Decoder
// and an Encoder of the JSON wire (field names as in the protos, enums by
// their short names, 64-bit integers as numbers; see package contract).
// Generated code calls them; nothing else needs to.
//
// A generated UnmarshalWire reads a message straight from the bytes and
// accepts exactly what contract's generic decoder accepts; at the first
// thing it does not accept it returns false, and contract runs the generic
// decoder to tell what is wrong. A generated MarshalWire writes what
// contract.Marshal writes.
package jsonwire

// Message is a message with a generated codec.
type Message interface {
	// UnmarshalWire reads the message from d, which is positioned at its
	// value; it returns false at the first thing it does not accept.
	UnmarshalWire(d *Decoder) bool
	// MarshalWire writes the message to e.
	MarshalWire(e *Encoder)
}
