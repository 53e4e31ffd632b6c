package contract_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestUnmarshalReused: decoding into a message that was decoded into
// before leaves nothing of the first decode, on either path (the fast
// one, and the slow one a refused input takes), as it does into a fresh
// message.
func TestUnmarshalReused(t *testing.T) {
	first := []byte(`{"x1":1,"y1":2,"x2":3,"y2":4,"layer":"walls","color":3}`)
	for _, fn := range []struct {
		name string
		f    func([]byte, proto.Message) error
	}{
		{"Unmarshal", contract.Unmarshal},
		{"UnmarshalPartial", contract.UnmarshalPartial},
		{"UnmarshalChecked", func(b []byte, m proto.Message) error { return contract.UnmarshalChecked(b, m, nil) }},
		{"DecodeFast", func(b []byte, m proto.Message) error {
			if _, ok := contract.DecodeFast(b, m, ""); !ok {
				return errRefused
			}
			return nil
		}},
	} {
		m := new(enginev1.EntityCreateLineArgs)
		if err := fn.f(first, m); err != nil {
			t.Fatalf("%s(first): %v", fn.name, err)
		}
		second := []byte(`{"x1":5,"y1":6,"x2":7,"y2":8}`)
		if err := fn.f(second, m); err != nil {
			t.Fatalf("%s(second): %v", fn.name, err)
		}
		want := &enginev1.EntityCreateLineArgs{X1: 5, Y1: 6, X2: 7, Y2: 8}
		if !proto.Equal(m, want) {
			t.Errorf("%s into a reused message = %v, want %v", fn.name, m, want)
		}
		// A refused input leaves the message reset, with no field of the
		// last decode (the slow path, which tells what is wrong, resets it
		// again).
		if err := fn.f([]byte(`{"x1":9,"y1":"no"}`), m); err == nil {
			t.Errorf("%s accepted a string for a number", fn.name)
		}
		if m.GetX2() != 0 || m.GetY2() != 0 {
			t.Errorf("%s after a refused input kept x2, y2 = %v, %v", fn.name, m.GetX2(), m.GetY2())
		}
	}
}

// errRefused is DecodeFast's refusal as an error.
var errRefused = errors.New("refused")
