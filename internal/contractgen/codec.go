package contractgen

import (
	"fmt"
	"path"
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/internal/wirename"
)

// Generated JSON codecs.
//
// For every message of a Go package the generator writes UnmarshalWire
// and MarshalWire (see package contract/jsonwire): a decoder that reads
// the message straight from JSON bytes, as strict as contract's generic
// decoder, and an encoder that writes what contract.Marshal writes. For
// every enum it writes the wire names both ways.

const jsonwirePath = protogen.GoImportPath("github.com/cadbridge/cadbridge/contract/jsonwire")

// codecs writes the codecs of the messages and enums of files (one Go
// package) into one file of that package.
func (g *generator) codecs(files []*protogen.File) error {
	var ms []*protogen.Message
	var es []*protogen.Enum
	var walk func([]*protogen.Message)
	walk = func(list []*protogen.Message) {
		for _, m := range list {
			if !m.Desc.IsMapEntry() {
				ms = append(ms, m)
			}
			es = append(es, m.Enums...)
			walk(m.Messages)
		}
	}
	for _, f := range files {
		es = append(es, f.Enums...)
		walk(f.Messages)
	}
	codecable := g.codecable()
	if len(ms) == 0 && len(es) == 0 {
		return nil
	}
	f := files[0]
	gf := g.plugin.NewGeneratedFile(path.Dir(f.GeneratedFilenamePrefix)+"/wire.contract.go", f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	for _, e := range es {
		writeEnumNames(gf, e)
	}
	for _, m := range ms {
		if !codecable[m.Desc.FullName()] {
			continue
		}
		c := &codecWriter{g: g, gf: gf, m: m}
		if err := c.unmarshal(); err != nil {
			return err
		}
		if err := c.marshal(); err != nil {
			return err
		}
	}
	return nil
}

// codecable is the set of messages that get generated codecs: those whose
// fields are scalars, enums and messages of the files in the request, the
// well-known types the decoder knows, and codecable messages. Others (the
// Session stream's frames, which carry google.rpc.Status, and the option
// messages) never travel as wire JSON on a hot path; package contract
// encodes and decodes them by reflection.
func (g *generator) codecable() map[protoreflect.FullName]bool {
	ours := map[protoreflect.FullName]bool{}
	var walk func([]*protogen.Message)
	walk = func(ms []*protogen.Message) {
		for _, m := range ms {
			ours[m.Desc.FullName()] = true
			for _, e := range m.Enums {
				ours[e.Desc.FullName()] = true
			}
			walk(m.Messages)
		}
	}
	for _, f := range g.plugin.Files {
		if f.Generate {
			for _, e := range f.Enums {
				ours[e.Desc.FullName()] = true
			}
			walk(f.Messages)
		}
	}
	known := map[protoreflect.FullName]bool{
		"google.protobuf.Timestamp": true, "google.protobuf.Struct": true,
		"google.protobuf.Value": true, "google.protobuf.ListValue": true,
	}
	ok := map[protoreflect.FullName]bool{}
	for name := range ours {
		ok[name] = true
	}
	for changed := true; changed; {
		changed = false
		for name, m := range g.messages {
			if !ok[name] || m.Desc.IsMapEntry() {
				continue
			}
			for _, f := range m.Fields {
				fd := f.Desc
				if fd.IsMap() {
					fd = fd.MapValue()
				}
				good := true
				switch fd.Kind() {
				case protoreflect.EnumKind:
					good = ours[fd.Enum().FullName()]
				case protoreflect.MessageKind:
					good = known[fd.Message().FullName()] || ok[fd.Message().FullName()]
				}
				if !good {
					delete(ok, name)
					changed = true
					break
				}
			}
		}
	}
	return ok
}

func writeEnumNames(gf *protogen.GeneratedFile, e *protogen.Enum) {
	name := e.GoIdent.GoName
	gf.P("// ", name, "ByWireName maps the wire names of ", name, " to its values (the")
	gf.P("// unspecified value has none).")
	gf.P("var ", name, "ByWireName = map[string]int32{")
	for _, v := range e.Values {
		if !wirename.IsUnspecified(v.Desc) {
			gf.P(strconv.Quote(wirename.EnumValue(v.Desc)), ": ", v.Desc.Number(), ",")
		}
	}
	gf.P("}")
	gf.P()
	gf.P("// WireName is x's name on the JSON wire, or \"\" for a number ", name)
	gf.P("// does not declare.")
	gf.P("func (x ", name, ") WireName() string {")
	gf.P("switch x {")
	seen := map[protoreflect.EnumNumber]bool{}
	for _, v := range e.Values {
		if seen[v.Desc.Number()] {
			continue // an alias: the first name wins, as ByNumber has it
		}
		seen[v.Desc.Number()] = true
		gf.P("case ", v.Desc.Number(), ":")
		gf.P("return ", strconv.Quote(wirename.EnumValue(v.Desc)))
	}
	gf.P("}")
	gf.P("return \"\"")
	gf.P("}")
	gf.P()
}

type codecWriter struct {
	g  *generator
	gf *protogen.GeneratedFile
	m  *protogen.Message
}

func (c *codecWriter) jw(name string) string {
	return c.gf.QualifiedGoIdent(protogen.GoIdent{GoName: name, GoImportPath: jsonwirePath})
}

// wireFields are the message's fields on the wire, in declaration order.
type wireFieldGen struct {
	f        *protogen.Field
	key      string
	raw      string
	bit      int
	required bool
	nonEmpty bool
}

func (c *codecWriter) fields() ([]wireFieldGen, error) {
	var out []wireFieldGen
	for _, f := range c.m.Fields {
		key, raw, hidden := c.g.opts.wireField(f.Desc)
		if hidden {
			continue
		}
		w := wireFieldGen{f: f, key: key, raw: raw, bit: len(out), required: wirename.Required(f.Desc)}
		if rules := c.g.opts.get(f.Desc, rulesOption); rules != nil && f.Desc.IsList() {
			if n, ok := field(rules, "min_items"); ok && n.Uint() > 0 {
				w.nonEmpty = true
			}
		}
		out = append(out, w)
	}
	if len(out) > 64 {
		return nil, fmt.Errorf("message %s has %d fields on the wire; generated decoders take at most 64", c.m.Desc.FullName(), len(out))
	}
	return out, nil
}

func (c *codecWriter) unmarshal() error {
	gf, name := c.gf, c.m.GoIdent.GoName
	fields, err := c.fields()
	if err != nil {
		return err
	}
	var required uint64
	for _, w := range fields {
		if w.required {
			required |= 1 << w.bit
		}
	}
	gf.P("// UnmarshalWire implements ", c.jw("Message"), ".")
	gf.P("func (x *", name, ") UnmarshalWire(d *", c.jw("Decoder"), ") bool {")
	gf.P("if !d.OpenObject() {")
	gf.P("return false")
	gf.P("}")
	if len(fields) == 0 {
		gf.P("for {")
		gf.P("key, ok := d.NextKey()")
		gf.P("if !ok {")
		gf.P("break")
		gf.P("}")
		gf.P("if !d.Unknown(key) {")
		gf.P("return d.Fail()")
		gf.P("}")
		gf.P("}")
		gf.P("return !d.Failed()")
		gf.P("}")
		gf.P()
		return nil
	}
	gf.P("var seen uint64")
	gf.P("for {")
	gf.P("key, ok := d.NextKey()")
	gf.P("if !ok {")
	gf.P("break")
	gf.P("}")
	gf.P("switch string(key) {")
	for _, w := range fields {
		gf.P("case ", strconv.Quote(w.key), ":")
		gf.P("if seen&(1<<", w.bit, ") != 0 {")
		gf.P("return d.Fail()")
		gf.P("}")
		gf.P("seen |= 1 << ", w.bit)
		if err := c.decodeField(w); err != nil {
			return err
		}
	}
	gf.P("default:")
	gf.P("if !d.Unknown(key) {")
	gf.P("return d.Fail()")
	gf.P("}")
	gf.P("}")
	gf.P("}")
	if required != 0 {
		gf.P("return !d.Failed() && (d.Partial || seen&", fmt.Sprintf("%#x", required), " == ", fmt.Sprintf("%#x", required), ")")
	} else {
		gf.P("return !d.Failed()")
	}
	gf.P("}")
	gf.P()
	return nil
}

// decodeField writes the decoding of one field's value, into x.
func (c *codecWriter) decodeField(w wireFieldGen) error {
	gf, f, fd := c.gf, w.f, w.f.Desc
	switch {
	case w.raw != "":
		gf.P("v, ok := d.Raw(", strconv.Quote(w.raw), ")")
		gf.P("if !ok {")
		gf.P("return false")
		gf.P("}")
		gf.P("x.", f.GoName, " = v")
	case fd.IsMap():
		key, val := f.Message.Fields[0], f.Message.Fields[1]
		if key.Desc.Kind() != protoreflect.StringKind {
			return fmt.Errorf("map field %s: generated decoders take string keys only", fd.FullName())
		}
		gf.P("if !d.OpenObject() {")
		gf.P("return false")
		gf.P("}")
		gf.P("if x.", f.GoName, " == nil {")
		gf.P("x.", f.GoName, " = map[string]", c.goType(val), "{}")
		gf.P("}")
		gf.P("for {")
		gf.P("k, ok := d.NextKey()")
		gf.P("if !ok {")
		gf.P("break")
		gf.P("}")
		gf.P("mk := string(k)")
		gf.P("if _, dup := x.", f.GoName, "[mk]; dup {")
		gf.P("return d.Fail()")
		gf.P("}")
		if err := c.decodeValue(val, "v"); err != nil {
			return err
		}
		gf.P("x.", f.GoName, "[mk] = v")
		gf.P("}")
		gf.P("if d.Failed() {")
		gf.P("return false")
		gf.P("}")
	case fd.IsList():
		if w.nonEmpty {
			gf.P("if d.EmptyArrayNext() {")
			gf.P("return d.Fail()")
			gf.P("}")
		}
		gf.P("if !d.OpenArray() {")
		gf.P("return false")
		gf.P("}")
		// A list of messages takes its elements from a slab: a few
		// allocations for 100k entities, not 100k.
		slab := isPlainMessage(fd)
		if slab {
			gf.P("var slab ", c.jw("Slab"), "[", gf.QualifiedGoIdent(f.Message.GoIdent), "]")
		}
		gf.P("for d.NextElement() {")
		if slab {
			gf.P("v := slab.New()")
			gf.P("if !v.UnmarshalWire(d) {")
			gf.P("return false")
			gf.P("}")
		} else if err := c.decodeValue(f, "v"); err != nil {
			return err
		}
		gf.P("x.", f.GoName, " = append(x.", f.GoName, ", v)")
		gf.P("}")
		gf.P("if d.Failed() {")
		gf.P("return false")
		gf.P("}")
	case f.Oneof != nil && !f.Oneof.Desc.IsSynthetic():
		gf.P("if x.", f.Oneof.GoName, " != nil {")
		gf.P("return d.Fail()")
		gf.P("}")
		if err := c.decodeValue(f, "v"); err != nil {
			return err
		}
		gf.P("x.", f.Oneof.GoName, " = &", gf.QualifiedGoIdent(f.GoIdent), "{", f.GoName, ": v}")
	case fd.Kind() != protoreflect.MessageKind && fd.HasPresence():
		if err := c.decodeValue(f, "v"); err != nil {
			return err
		}
		if fd.Kind() == protoreflect.DoubleKind {
			gf.P("x.", f.GoName, " = d.Float64Ref(v)") // coordinates: many per call
		} else {
			gf.P("x.", f.GoName, " = &v")
		}
	default:
		if err := c.decodeValue(f, "v"); err != nil {
			return err
		}
		gf.P("x.", f.GoName, " = v")
	}
	return nil
}

// isPlainMessage reports whether fd's values are messages with generated
// decoders of their own (not well-known types).
func isPlainMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind && fd.Message().ParentFile().Package() != "google.protobuf"
}

// decodeValue writes code that reads one value of f's type into a new
// variable v (a scalar, or a pointer to a message), returning false on
// failure.
func (c *codecWriter) decodeValue(f *protogen.Field, v string) error {
	gf, fd := c.gf, f.Desc
	read := func(call string) {
		gf.P(v, ", ok := d.", call)
		gf.P("if !ok {")
		gf.P("return false")
		gf.P("}")
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		read("Bool()")
	case protoreflect.StringKind:
		read("String()")
	case protoreflect.BytesKind:
		read("Bytes()")
	case protoreflect.DoubleKind:
		read("Float64()")
	case protoreflect.FloatKind:
		read("Float32()")
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		read("Int32()")
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		read("Int64()")
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		read("Uint32()")
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		read("Uint64()")
	case protoreflect.EnumKind:
		table := gf.QualifiedGoIdent(protogen.GoIdent{GoName: f.Enum.GoIdent.GoName + "ByWireName", GoImportPath: f.Enum.GoIdent.GoImportPath})
		gf.P("n, ok := d.Enum(", table, ")")
		gf.P("if !ok {")
		gf.P("return false")
		gf.P("}")
		gf.P(v, " := ", gf.QualifiedGoIdent(f.Enum.GoIdent), "(n)")
	case protoreflect.MessageKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Timestamp":
			read("Timestamp()")
		case "google.protobuf.Struct":
			read("Struct()")
		case "google.protobuf.Value":
			read("StructValue()")
		case "google.protobuf.ListValue":
			read("ListValue()")
		default:
			if fd.Message().ParentFile().Package() == "google.protobuf" {
				return fmt.Errorf("field %s: generated decoders do not take %s", fd.FullName(), fd.Message().FullName())
			}
			gf.P(v, " := new(", gf.QualifiedGoIdent(f.Message.GoIdent), ")")
			gf.P("if !", v, ".UnmarshalWire(d) {")
			gf.P("return false")
			gf.P("}")
		}
	default:
		return fmt.Errorf("field %s: generated decoders do not take kind %v", fd.FullName(), fd.Kind())
	}
	return nil
}

// goType is the Go type of one value of f (a map's value type).
func (c *codecWriter) goType(f *protogen.Field) string {
	switch f.Desc.Kind() {
	case protoreflect.BoolKind:
		return "bool"
	case protoreflect.StringKind:
		return "string"
	case protoreflect.BytesKind:
		return "[]byte"
	case protoreflect.DoubleKind:
		return "float64"
	case protoreflect.FloatKind:
		return "float32"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "int32"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "int64"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "uint32"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "uint64"
	case protoreflect.EnumKind:
		return c.gf.QualifiedGoIdent(f.Enum.GoIdent)
	default:
		return "*" + c.gf.QualifiedGoIdent(f.Message.GoIdent)
	}
}

func (c *codecWriter) marshal() error {
	gf, name := c.gf, c.m.GoIdent.GoName
	fields, err := c.fields()
	if err != nil {
		return err
	}
	gf.P("// MarshalWire implements ", c.jw("Message"), ".")
	gf.P("func (x *", name, ") MarshalWire(e *", c.jw("Encoder"), ") {")
	if len(fields) > 0 {
		gf.P("if x == nil {")
		gf.P("x = &", name, "{}")
		gf.P("}")
	}
	gf.P("e.OpenObject()")
	for _, w := range fields {
		if err := c.encodeField(w); err != nil {
			return err
		}
	}
	gf.P("e.CloseObject()")
	gf.P("}")
	gf.P()
	return nil
}

func (c *codecWriter) encodeField(w wireFieldGen) error {
	gf, f, fd := c.gf, w.f, w.f.Desc
	key := strconv.Quote(strconv.Quote(w.key) + ":")
	switch {
	case w.raw != "":
		if !w.required {
			gf.P("if x.", f.GoName, " != nil {")
		}
		gf.P("e.Key(", key, ")")
		gf.P("e.Raw(x.", f.GoName, ", ", strconv.Quote(w.raw), ")")
		if !w.required {
			gf.P("}")
		}
	case fd.IsMap():
		sorted := gf.QualifiedGoIdent(protogen.GoIdent{GoName: "Sorted", GoImportPath: "slices"})
		keys := gf.QualifiedGoIdent(protogen.GoIdent{GoName: "Keys", GoImportPath: "maps"})
		gf.P("if len(x.", f.GoName, ") > 0 {")
		gf.P("e.Key(", key, ")")
		gf.P("e.OpenObject()")
		gf.P("for _, k := range ", sorted, "(", keys, "(x.", f.GoName, ")) {")
		gf.P("e.Key(string(", gf.QualifiedGoIdent(protogen.GoIdent{GoName: "AppendString", GoImportPath: jsonwirePath}), "(nil, k)) + \":\")")
		if err := c.encodeValue(f.Message.Fields[1], "x."+f.GoName+"[k]"); err != nil {
			return err
		}
		gf.P("}")
		gf.P("e.CloseObject()")
		gf.P("}")
	case fd.IsList():
		gf.P("if len(x.", f.GoName, ") > 0 {")
		gf.P("e.Key(", key, ")")
		gf.P("e.OpenArray()")
		gf.P("for _, v := range x.", f.GoName, " {")
		gf.P("e.Element()")
		if err := c.encodeValue(f, "v"); err != nil {
			return err
		}
		gf.P("}")
		gf.P("e.CloseArray()")
		gf.P("}")
	case f.Oneof != nil && !f.Oneof.Desc.IsSynthetic():
		gf.P("if o, ok := x.", f.Oneof.GoName, ".(*", gf.QualifiedGoIdent(f.GoIdent), "); ok {")
		gf.P("e.Key(", key, ")")
		if err := c.encodeValue(f, "o."+f.GoName); err != nil {
			return err
		}
		gf.P("}")
	case fd.Kind() != protoreflect.MessageKind && fd.HasPresence():
		gf.P("if x.", f.GoName, " != nil {")
		gf.P("e.Key(", key, ")")
		if err := c.encodeValue(f, "(*x."+f.GoName+")"); err != nil {
			return err
		}
		gf.P("}")
	case fd.Kind() == protoreflect.MessageKind && !w.required:
		gf.P("if x.", f.GoName, " != nil {")
		gf.P("e.Key(", key, ")")
		if err := c.encodeValue(f, "x."+f.GoName); err != nil {
			return err
		}
		gf.P("}")
	default:
		gf.P("e.Key(", key, ")")
		if err := c.encodeValue(f, "x."+f.GoName); err != nil {
			return err
		}
	}
	return nil
}

// encodeValue writes code that writes one value v of f's type.
func (c *codecWriter) encodeValue(f *protogen.Field, v string) error {
	gf, fd := c.gf, f.Desc
	switch fd.Kind() {
	case protoreflect.BoolKind:
		gf.P("e.Bool(", v, ")")
	case protoreflect.StringKind:
		gf.P("e.String(", v, ")")
	case protoreflect.BytesKind:
		gf.P("e.BytesBase64(", v, ")")
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		gf.P("e.Float64(float64(", v, "), ", strconv.Quote(string(fd.FullName())), ")")
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		gf.P("e.Int64(int64(", v, "))")
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		gf.P("e.Uint64(uint64(", v, "))")
	case protoreflect.EnumKind:
		gf.P("if n := ", v, ".WireName(); n != \"\" {")
		gf.P("e.String(n)")
		gf.P("} else {")
		gf.P("e.Int64(int64(", v, "))")
		gf.P("}")
	case protoreflect.MessageKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Timestamp":
			gf.P("e.Timestamp(", v, ")")
		case "google.protobuf.Struct":
			gf.P("e.Struct(", v, ")")
		case "google.protobuf.Value":
			gf.P("e.Value(", v, ")")
		case "google.protobuf.ListValue":
			gf.P("e.ListValue(", v, ")")
		default:
			gf.P(v, ".MarshalWire(e)")
		}
	default:
		return fmt.Errorf("field %s: generated encoders do not take kind %v", fd.FullName(), fd.Kind())
	}
	return nil
}
