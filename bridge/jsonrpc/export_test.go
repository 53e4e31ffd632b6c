package jsonrpc

// The encoding/json paths of the wire, for the differential fuzz tests of
// the fast ones.
var (
	DecodeMessageSlow = decodeMessageSlow
	DecodePayloadSlow = decodePayloadSlow
	EncodeMessageSlow = func(m Message) ([]byte, error) { return encodeMessage(m, false) }
	MarshalCompact    = marshalCompact
	MarshalJSONSlow   = marshalJSON
)

// GrowStack is the stack growth that readers and workers start with.
var GrowStack = growStack
