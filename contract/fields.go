package contract

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/wirename"
)

// wireField is how one field travels on the JSON wire: its key, and for a
// raw field (see enginev1.JSONOptions) the JSON type of the value its
// bytes hold.
type wireField struct {
	fd       protoreflect.FieldDescriptor
	index    int // in wireMessage.fields
	key      string
	keyJSON  []byte // the key as a JSON string, and a colon
	raw      string // "object", "array", or "" for a field that is not raw
	required bool
	oneof    protoreflect.OneofDescriptor // nil, or a real (not synthetic) oneof
}

// wireMessage is how a message travels on the JSON wire: its fields in
// declaration order (hidden ones left out) and by key.
type wireMessage struct {
	fields    []wireField
	byKey     map[string]*wireField
	required  []int // indexes of required fields in fields
	wellKnown bool
}

var wireMessages sync.Map // protoreflect.MessageDescriptor → *wireMessage

// wireOf returns the wire layout of md, computed once.
func wireOf(md protoreflect.MessageDescriptor) *wireMessage {
	if w, ok := wireMessages.Load(md); ok {
		return w.(*wireMessage)
	}
	w := &wireMessage{byKey: map[string]*wireField{}, wellKnown: isWellKnown(md)}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		key, raw, hidden := jsonOptions(fd)
		if hidden {
			continue
		}
		f := wireField{fd: fd, index: len(w.fields), key: key, raw: raw, required: wirename.Required(fd)}
		f.keyJSON = append(jsonwire.AppendString(nil, key), ':')
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.oneof = od
		}
		if f.required {
			w.required = append(w.required, len(w.fields))
		}
		w.fields = append(w.fields, f)
	}
	for i := range w.fields {
		w.byKey[w.fields[i].key] = &w.fields[i]
	}
	actual, _ := wireMessages.LoadOrStore(md, w)
	return actual.(*wireMessage)
}

// jsonOptions reads a field's (cad.engine.v1.json) option.
func jsonOptions(fd protoreflect.FieldDescriptor) (key, raw string, hidden bool) {
	key = string(fd.Name())
	opts := fd.Options()
	if opts == nil || !proto.HasExtension(opts, enginev1.E_Json) {
		return key, "", false
	}
	j := proto.GetExtension(opts, enginev1.E_Json).(*enginev1.JSONOptions)
	if j.GetName() != "" {
		key = j.GetName()
	}
	return key, j.GetRaw(), j.GetHidden()
}

// FieldByKey is the field of md whose key on the JSON wire is key, or nil.
func FieldByKey(md protoreflect.MessageDescriptor, key string) protoreflect.FieldDescriptor {
	if f := wireOf(md).byKey[key]; f != nil {
		return f.fd
	}
	return nil
}

// Key is fd's key on the JSON wire.
func Key(fd protoreflect.FieldDescriptor) string {
	key, _, _ := jsonOptions(fd)
	return key
}
