package contract_test

import (
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// subject is a message type the agreement tests decode, with the schema
// that states its rules (nil when it has no schema of its own).
type subject struct {
	name   string
	msg    proto.Message
	schema *contract.Schema
}

// subjects are every tool's args, with their schemas, and the messages of
// the JSON-RPC methods' params and results, without.
var subjects = func() []subject {
	var out []subject
	for _, t := range enginev1.Tools {
		out = append(out, subject{t.Name, t.Args, contract.MustCompileSchema(t.Name, t.InputSchema)})
	}
	seen := map[protoreflect.FullName]bool{}
	for _, m := range gatewayv1.Methods {
		for _, msg := range []proto.Message{m.Params, m.Result} {
			if msg == nil || seen[msg.ProtoReflect().Descriptor().FullName()] {
				continue
			}
			seen[msg.ProtoReflect().Descriptor().FullName()] = true
			out = append(out, subject{string(msg.ProtoReflect().Descriptor().FullName()), msg, nil})
		}
	}
	return out
}()

// slow decodes data the way the wire was decoded before the fast path:
// the generic form, the schema, then Decode.
func slow(data []byte, s subject) (proto.Message, error) {
	v, err := contract.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	if s.schema != nil {
		if viol := s.schema.Validate(v); viol != nil {
			return nil, viol
		}
	}
	m := s.msg.ProtoReflect().New().Interface()
	if err := contract.Decode(v, m); err != nil {
		return nil, err
	}
	return m, nil
}

// fast decodes data with Unmarshal, or UnmarshalChecked when the subject
// has a schema.
func fast(data []byte, s subject) (proto.Message, error) {
	m := s.msg.ProtoReflect().New().Interface()
	var err error
	if s.schema != nil {
		err = contract.UnmarshalChecked(data, m, s.schema)
	} else {
		err = contract.Unmarshal(data, m)
	}
	return m, err
}

// checkAgree fails unless both ways accept data and decode the same
// message, or both refuse it with the same violation.
func checkAgree(t *testing.T, data []byte, s subject) {
	t.Helper()
	want, werr := slow(data, s)
	got, gerr := fast(data, s)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Fatalf("%s: %q: fast path = %v, slow path = %v", s.name, data, gerr, werr)
	case werr != nil:
		var wv, gv *contract.Violation
		if errors.As(werr, &wv) && errors.As(gerr, &gv) && *wv != *gv {
			t.Fatalf("%s: %q: fast path violation %+v, slow path %+v", s.name, data, *gv, *wv)
		}
	case !sameMessage(got.ProtoReflect(), want.ProtoReflect()):
		t.Fatalf("%s: %q: fast path decoded %v, slow path %v", s.name, data, got, want)
	default:
		gen, gerr := contract.Marshal(want)
		refl, rerr := contract.MarshalReflect(want)
		if string(gen) != string(refl) || (gerr == nil) != (rerr == nil) {
			t.Fatalf("%s: %q: generated encoder wrote %s (%v), reflection %s (%v)", s.name, data, gen, gerr, refl, rerr)
		}
	}
}

// sameMessage is proto.Equal but for raw fields, whose JSON is compared by
// value (the slow path writes it with sorted keys).
func sameMessage(a, b protoreflect.Message) bool {
	if a.Descriptor() != b.Descriptor() {
		return false
	}
	fields := a.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if a.Has(fd) != b.Has(fd) {
			return false
		}
		if !a.Has(fd) {
			continue
		}
		av, bv := a.Get(fd), b.Get(fd)
		switch {
		case fd.Kind() == protoreflect.BytesKind && !fd.IsList() && !fd.IsMap() && isRaw(fd):
			x, err1 := contract.ParseJSON(av.Bytes())
			y, err2 := contract.ParseJSON(bv.Bytes())
			if err1 != nil || err2 != nil || !reflect.DeepEqual(x, y) {
				return false
			}
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			if av.List().Len() != bv.List().Len() {
				return false
			}
			for j := range av.List().Len() {
				if !sameMessage(av.List().Get(j).Message(), bv.List().Get(j).Message()) {
					return false
				}
			}
		case !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
			if !sameMessage(av.Message(), bv.Message()) {
				return false
			}
		default:
			ma, mb := a.New(), b.New()
			ma.Set(fd, av)
			mb.Set(fd, bv)
			if !proto.Equal(ma.Interface(), mb.Interface()) {
				return false
			}
		}
	}
	return true
}

func isRaw(fd protoreflect.FieldDescriptor) bool {
	o, ok := proto.GetExtension(fd.Options(), enginev1.E_Json).(*enginev1.JSONOptions)
	return ok && o.GetRaw() != ""
}

// agreementSeeds are inputs each subject is tried with: valid and broken
// arguments of every kind of rule, and JSON the fast path leaves to the
// slow one.
var agreementSeeds = []string{
	`{}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"linetype":"dashed"}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"linetype":"wiggly"}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"layer":"walls","color":256}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"color":999}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"color":1.5}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"color":"red"}`,
	`{"x1":0,"y1":0,"x2":3,"y2":4,"x1":1}`,
	`{"x1":1e400,"y1":0,"x2":3,"y2":4}`,
	`{"x1":null,"y1":0,"x2":3,"y2":4}`,
	` { "x1" : 0 , "y1" : 0, "x2": 3 , "y2" : 4 } `,
	`{"x1":0,"y1":0,"x2":3,"y2":4} x`,
	`{"cx":0,"cy":0,"radius":0}`,
	`{"cx":0,"cy":0,"radius":-1}`,
	`{"cx":0,"cy":0,"radius":2.5}`,
	`{"name":"walls","color":3,"linetype":"CENTER","lineweight":35}`,
	`{"name":"walls","lineweight":36}`,
	`{"name":"walls","lineweight":300}`,
	`{"name":"w\u0061lls"}`,
	`{"name":"\ud83d\ude00"}`,
	`{"name":"\ud83d"}`,
	"{\"name\":\"\xff\"}",
	`{"name":""}`,
	`{"handle":"1F"}`,
	`{"handle":"1F","snap":"end"}`,
	`{"handle":"1F","snap":"sideways"}`,
	`{"handles":["1F","20"]}`,
	`{"handles":[]}`,
	`{"points":[{"x":0,"y":0},{"x":1,"y":0,"bulge":0.5}],"closed":true}`,
	`{"points":[{"x":0,"y":0}]}`,
	`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1},{"type":"circle","cx":0,"cy":0,"radius":1}]}`,
	`{"entities":[{"type":"circle","cx":0,"cy":0,"radius":0}]}`,
	`{"text":"Grüße","x":1,"y":2,"height":2.5}`,
	`{"document_id":"doc-1","tool":"entity_get","args":{"handle":"1F"}}`,
	`{"document_id":"doc-1","tool":"entity_get","args":{"handle":"1F","handle":"20"}}`,
	`{"document_id":"doc-1","tool":"entity_get","args":[1]}`,
	`{"document_id":"doc-1","tool":"entity_get","args": { "a" : [ 1 , "x y" , {"b":null} ] } }`,
	`{"document_id":"doc-1","steps":[{"tool":"entity_create_line","args":{"x1":"$a.x"},"bind":"l"}],"on_error":"rollback","operation_id":"op-1"}`,
	`{"document_id":"doc-1","steps":[{"tool":"t","args":{},"bind":"1l"}]}`,
	`{"document_id":"doc-1","steps":[],"expected_revision":-1}`,
	`{"session_id":"s","seq":1,"type":"batch.progress","payload":{"step":1}}`,
	`{"session_id":"s","last_seen":5}`,
	`{"capabilities":{"server_requests":["approval"]},"approval_policy":"destructive","client":{"name":"n","version":"1"}}`,
	`{"document_ids":["doc-1"],"session_id":"s"}`,
	`{"ok":true,"tool":"t","operation_id":"op","revision":1,"result":{"handle":"1F"},"replayed":false}`,
	`{"operation_id":"op","principal":"p","kind":"cad.batch","document_id":"d","status":"succeeded","committed_steps":[0],"revision":1,"started_at":"2026-12-01T08:00:00Z"}`,
	`{"operation_id":"op","principal":"p","kind":"cad.batch","document_id":"d","status":"succeeded","committed_steps":[0],"revision":1,"started_at":"yesterday"}`,
	`[]`,
	`"x"`,
	``,
}

func TestFastAndSlowDecodingAgree(t *testing.T) {
	for _, s := range subjects {
		for _, seed := range agreementSeeds {
			checkAgree(t, []byte(seed), s)
		}
	}
}

// FuzzFastAndSlowDecodingAgree feeds both ways of decoding arbitrary
// inputs for every subject: they must accept and refuse the same inputs,
// and decode the same messages.
func FuzzFastAndSlowDecodingAgree(f *testing.F) {
	// TestFastAndSlowDecodingAgree tries every seed with every subject;
	// here each seed goes with a few, so that the baseline run stays short.
	for j, seed := range agreementSeeds {
		for _, i := range []int{j, j + len(subjects)/3, j + 2*len(subjects)/3} {
			f.Add(uint8(i%len(subjects)), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		checkAgree(t, data, subjects[int(which)%len(subjects)])
	})
}
