package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// checkHandles reports the first literal handle in a handle field of the
// decoded arguments m (FieldRules.handle, at any depth) that is not hex
// digits: validation refuses such a batch step before anything runs.
func checkHandles(m protoreflect.Message) *toolError {
	bad, path, found := firstBadHandle(m)
	if !found {
		return nil
	}
	return invalidArgs(path, reasonInvalid, "%q is not an entity handle (hex digits)", bad)
}

// firstBadHandle finds the first bad handle in the order a walk of the
// JSON with keys sorted meets it.
func firstBadHandle(m protoreflect.Message) (bad, path string, found bool) {
	hf := handleFieldsOf(m.Descriptor())
	for f, fd := range hf.fields {
		key := hf.pointers[f]
		nested := fd.Kind() == protoreflect.MessageKind
		switch {
		case fd.IsList() && hf.goFields[f] >= 0:
			// Read through the generated struct: protoreflect's list
			// allocates for every string it hands out.
			list := hf.strings(m, f)
			for i := range list.Len() {
				if s := list.Index(i).String(); !validHandle(s) {
					return s, key + "/" + strconv.Itoa(i), true
				}
			}
		case fd.IsList():
			list := m.Get(fd).List()
			for i := range list.Len() {
				if nested {
					if bad, p, ok := firstBadHandle(list.Get(i).Message()); ok {
						return bad, key + "/" + strconv.Itoa(i) + p, true
					}
				} else if s := list.Get(i).String(); !validHandle(s) {
					return s, key + "/" + strconv.Itoa(i), true
				}
			}
		case nested:
			if m.Has(fd) {
				if bad, p, ok := firstBadHandle(m.Get(fd).Message()); ok {
					return bad, key + p, true
				}
			}
		case m.Has(fd) || !fd.HasPresence():
			if s := m.Get(fd).String(); !validHandle(s) {
				return s, key, true
			}
		}
	}
	return "", "", false
}

func validHandle(s string) bool {
	_, ok := drawing.ParseHandle(s)
	return ok
}

// handleFields are the fields of a message that hold handles (string
// fields with the handle rule) or messages that do, sorted by key, and
// the JSON pointer of each in the message ("/handles").
type handleFields struct {
	fields   []protoreflect.FieldDescriptor
	pointers []string
	goFields []int // each field's index in the generated struct
}

// strings is the list of strings of the fth field of m, a generated
// message.
func (hf *handleFields) strings(m protoreflect.Message, f int) reflect.Value {
	return reflect.ValueOf(m.Interface()).Elem().Field(hf.goFields[f])
}

// goField is the index in the generated struct t of the field fd.
func goField(t reflect.Type, fd protoreflect.FieldDescriptor) int {
	name := "name=" + string(fd.Name()) + ","
	for i := range t.NumField() {
		if strings.Contains(t.Field(i).Tag.Get("protobuf")+",", name) {
			return i
		}
	}
	panic(fmt.Sprintf("engine: %s has no field %s", t, fd.Name()))
}

var handleFieldCache sync.Map // protoreflect.MessageDescriptor → *handleFields

func handleFieldsOf(md protoreflect.MessageDescriptor) *handleFields {
	if v, ok := handleFieldCache.Load(md); ok {
		return v.(*handleFields)
	}
	hf := &handleFields{}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsMap():
		case fd.Kind() == protoreflect.StringKind:
			if r, _ := proto.GetExtension(fd.Options(), enginev1.E_Rules).(*enginev1.FieldRules); r.GetHandle() {
				hf.fields = append(hf.fields, fd)
			}
		case fd.Kind() == protoreflect.MessageKind && fd.Message() != md && fd.Message().ParentFile().Package() != "google.protobuf":
			if len(handleFieldsOf(fd.Message()).fields) > 0 {
				hf.fields = append(hf.fields, fd)
			}
		}
	}
	slices.SortFunc(hf.fields, func(a, b protoreflect.FieldDescriptor) int { return strings.Compare(contract.Key(a), contract.Key(b)) })
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	for _, fd := range hf.fields {
		hf.pointers = append(hf.pointers, "/"+escapePointer(contract.Key(fd)))
		f := -1
		if err == nil && fd.IsList() && fd.Kind() == protoreflect.StringKind {
			f = goField(reflect.TypeOf(mt.Zero().Interface()).Elem(), fd)
		}
		hf.goFields = append(hf.goFields, f)
	}
	v, _ := handleFieldCache.LoadOrStore(md, hf)
	return v.(*handleFields)
}
