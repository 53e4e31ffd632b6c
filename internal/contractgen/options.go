package contractgen

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Full names of cadbridge's custom options.
const (
	toolOption   = "cad.engine.v1.tool"
	rulesOption  = "cad.engine.v1.rules"
	domainOption = "cad.engine.v1.domain"
	reasonOption = "cad.engine.v1.reason"
	jsonOption   = "cad.engine.v1.json"
	methodOption = "cad.gateway.v1.method"
)

// options reads cadbridge's custom options without their generated Go types,
// so that the generator builds before the code it generates exists.
type options struct {
	types *protoregistry.Types
	// domains are the members of each cad.engine.v1.ValueDomain, by number
	// (see readDomains).
	domains map[protoreflect.EnumNumber]domain
}

func newOptions(files []protoreflect.FileDescriptor) (*options, error) {
	types := new(protoregistry.Types)
	for _, f := range files {
		xs := f.Extensions()
		for i := 0; i < xs.Len(); i++ {
			if err := types.RegisterExtension(dynamicpb.NewExtensionType(xs.Get(i))); err != nil {
				return nil, fmt.Errorf("register option %s: %w", xs.Get(i).FullName(), err)
			}
		}
	}
	return &options{types: types}, nil
}

// get returns the option named full on a descriptor's options, or nil.
func (o *options) get(desc protoreflect.Descriptor, full protoreflect.FullName) protoreflect.Message {
	opts := desc.Options()
	if opts == nil {
		return nil
	}
	raw, err := proto.Marshal(opts)
	if err != nil {
		return nil
	}
	var fresh proto.Message
	switch opts.(type) {
	case *descriptorpb.MessageOptions:
		fresh = new(descriptorpb.MessageOptions)
	case *descriptorpb.FieldOptions:
		fresh = new(descriptorpb.FieldOptions)
	case *descriptorpb.EnumValueOptions:
		fresh = new(descriptorpb.EnumValueOptions)
	default:
		return nil
	}
	if err := (proto.UnmarshalOptions{Resolver: o.types}).Unmarshal(raw, fresh); err != nil {
		return nil
	}
	// Match by name: the dynamic extension extends the request's copy of
	// descriptor.proto, which proto.HasExtension does not take as the same.
	var found protoreflect.Message
	fresh.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsExtension() && fd.FullName() == full {
			found = v.Message()
			return false
		}
		return true
	})
	return found
}

func field(m protoreflect.Message, name string) (protoreflect.Value, bool) {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil || !m.Has(fd) {
		return protoreflect.Value{}, false
	}
	return m.Get(fd), true
}

func str(m protoreflect.Message, name string) string {
	v, _ := field(m, name)
	if !v.IsValid() {
		return ""
	}
	return v.String()
}

func boolean(m protoreflect.Message, name string) bool {
	v, ok := field(m, name)
	return ok && v.Bool()
}

func enumNumber(m protoreflect.Message, name string) int32 {
	v, ok := field(m, name)
	if !ok {
		return 0
	}
	return int32(v.Enum())
}

func integer(m protoreflect.Message, name string) int64 {
	v, ok := field(m, name)
	if !ok {
		return 0
	}
	return v.Int()
}

func strs(m protoreflect.Message, name string) []string {
	v, ok := field(m, name)
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < v.List().Len(); i++ {
		out = append(out, v.List().Get(i).String())
	}
	return out
}

func ints(m protoreflect.Message, name string) []int64 {
	v, ok := field(m, name)
	if !ok {
		return nil
	}
	var out []int64
	for i := 0; i < v.List().Len(); i++ {
		out = append(out, v.List().Get(i).Int())
	}
	return out
}

// wireField is how a field appears on the JSON wire (the (cad.engine.v1.json)
// option): its key, the JSON type of a raw field ("" for others), and
// whether it is hidden.
func (o *options) wireField(fd protoreflect.FieldDescriptor) (key, raw string, hidden bool) {
	key = string(fd.Name())
	j := o.get(fd, jsonOption)
	if j == nil {
		return key, "", false
	}
	if n := str(j, "name"); n != "" {
		key = n
	}
	return key, str(j, "raw"), boolean(j, "hidden")
}
