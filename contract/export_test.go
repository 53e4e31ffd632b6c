package contract

import (
	"bytes"

	"google.golang.org/protobuf/proto"
)

// MarshalReflect is Marshal by reflection only, for comparing the
// generated encoders with it.
func MarshalReflect(m proto.Message) ([]byte, error) {
	var buf bytes.Buffer
	err := encodeMessage(&buf, m.ProtoReflect())
	return buf.Bytes(), err
}
