package contractgen

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Generated rule checks.
//
// For every message that holds a field rule, directly or in a message it
// contains, the generator writes a method CheckRules that reports the
// first rule a decoded message breaks: bounds, lengths (in characters),
// list sizes, patterns and value domains, exactly as the JSON Schemas
// state them (see schemas.applyValueRules). Presence, types and unknown
// keys are the decoder's to check; CheckRules sees only values. The
// package that declares cad.engine.v1.ViolationReason gets the
// RuleViolation type the checks return.

// ruleMessages is the set of messages (across all files) that need a
// CheckRules method: those with a rule and those with a field of such a
// message type.
func (g *generator) ruleMessages() map[protoreflect.FullName]bool {
	need := map[protoreflect.FullName]bool{}
	for changed := true; changed; {
		changed = false
		for name, m := range g.messages {
			if need[name] || m.Desc.IsMapEntry() {
				continue
			}
			for _, f := range m.Fields {
				fd := f.Desc
				if g.opts.get(fd, rulesOption) != nil && hasValueRules(g.opts, fd) ||
					valueMessage(fd) != nil && need[valueMessage(fd).FullName()] {
					need[name], changed = true, true
					break
				}
			}
		}
	}
	return need
}

// valueMessage is the message type of a field's values (its map values
// for a map), or nil.
func valueMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	if fd.Kind() == protoreflect.MessageKind {
		return fd.Message()
	}
	return nil
}

// hasValueRules says whether a field's rules check anything (handle is an
// annotation only).
func hasValueRules(o *options, fd protoreflect.FieldDescriptor) bool {
	r := o.get(fd, rulesOption)
	if r == nil {
		return false
	}
	for _, name := range []string{"minimum", "maximum", "exclusive_minimum", "min_length", "max_length", "min_items", "max_items", "pattern", "domain"} {
		if _, ok := field(r, name); ok {
			return true
		}
	}
	return false
}

// rules writes the rule checks of the messages of files (one Go package)
// into one file of that package.
func (g *generator) rules(files []*protogen.File, need map[protoreflect.FullName]bool) error {
	var ms []*protogen.Message
	var walk func([]*protogen.Message)
	walk = func(list []*protogen.Message) {
		for _, m := range list {
			if need[m.Desc.FullName()] {
				ms = append(ms, m)
			}
			walk(m.Messages)
		}
	}
	declaresReason := false
	for _, f := range files {
		walk(f.Messages)
		declaresReason = declaresReason || findEnumIn(f.Desc, "cad.engine.v1.ViolationReason")
	}
	if len(ms) == 0 && !declaresReason {
		return nil
	}
	f := files[0]
	gf := g.plugin.NewGeneratedFile(path.Dir(f.GeneratedFilenamePrefix)+"/rules.contract.go", f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	w := &ruleWriter{g: g, gf: gf, need: need, patterns: map[string]string{}}
	if declaresReason {
		w.violationType()
	}
	for _, m := range ms {
		if err := w.message(m); err != nil {
			return err
		}
	}
	w.helpers()
	return nil
}

func findEnumIn(f protoreflect.FileDescriptor, full protoreflect.FullName) bool {
	es := f.Enums()
	for i := 0; i < es.Len(); i++ {
		if es.Get(i).FullName() == full {
			return true
		}
	}
	return false
}

type ruleWriter struct {
	g        *generator
	gf       *protogen.GeneratedFile
	need     map[protoreflect.FullName]bool
	patterns map[string]string // pattern → variable name
	order    []string          // patterns in first-use order
	domains  []int32           // domains used, in first-use order
	usesFold bool
	// usesPointerEscape is set when a map's keys go into paths.
	usesPointerEscape bool
}

func (w *ruleWriter) ident(name, path string) string {
	return w.gf.QualifiedGoIdent(protogen.GoIdent{GoName: name, GoImportPath: protogen.GoImportPath(path)})
}

func (w *ruleWriter) reasonIdent(reason string) string {
	return w.ident("ViolationReason_VIOLATION_REASON_"+reason, "github.com/cadbridge/cadbridge/gen/cad/engine/v1")
}

func (w *ruleWriter) violationIdent() string {
	return w.ident("RuleViolation", "github.com/cadbridge/cadbridge/gen/cad/engine/v1")
}

func (w *ruleWriter) violationType() {
	gf := w.gf
	gf.P("// RuleViolation is a field rule of the contract that a decoded message")
	gf.P("// breaks: where (an RFC 6901 pointer into the message as the JSON wire")
	gf.P("// has it), how, and a sentence.")
	gf.P("type RuleViolation struct {")
	gf.P("// Path points at the value.")
	gf.P("Path string")
	gf.P("// Reason is how it breaks the rule.")
	gf.P("Reason ViolationReason")
	gf.P("// Message is a sentence for people.")
	gf.P("Message string")
	gf.P("}")
	gf.P()
	gf.P("// Under returns v with prefix put before its path.")
	gf.P("func (v *RuleViolation) Under(prefix string) *RuleViolation {")
	gf.P("v.Path = prefix + v.Path")
	gf.P("return v")
	gf.P("}")
	gf.P()
}

func (w *ruleWriter) message(m *protogen.Message) error {
	gf := w.gf
	gf.P("// CheckRules reports the first field rule x breaks, or nil.")
	gf.P("func (x *", m.GoIdent.GoName, ") CheckRules() *", w.violationIdent(), " {")
	gf.P("if x == nil {")
	gf.P("return nil")
	gf.P("}")
	for _, f := range m.Fields {
		if err := w.field(f); err != nil {
			return fmt.Errorf("rules of %s: %w", f.Desc.FullName(), err)
		}
	}
	gf.P("return nil")
	gf.P("}")
	gf.P()
	return nil
}

// field writes the checks of one field: its value rules (on each element
// of a list or map), its list bounds, and the checks of the messages it
// holds.
func (w *ruleWriter) field(f *protogen.Field) error {
	fd := f.Desc
	key, _, hidden := w.g.opts.wireField(fd)
	if hidden {
		return nil
	}
	rules := w.g.opts.get(fd, rulesOption)
	nested := valueMessage(fd) != nil && w.need[valueMessage(fd).FullName()]
	if !nested && (rules == nil || !hasValueRules(w.g.opts, fd)) {
		return nil
	}
	gf := w.gf
	path := strconv.Quote("/" + escapePointer(key))
	switch {
	case fd.IsList():
		if rules != nil {
			if lo, ok := field(rules, "min_items"); ok {
				// An absent list is empty too, and no rule holds for an absent
				// field: the decoder refuses a list given empty instead.
				gf.P("if n := len(x.", f.GoName, "); n > 0 && n < ", lo.Uint(), " {")
				gf.P("return &", w.violationIdent(), "{Path: ", path, ", Reason: ", w.reasonIdent("OUT_OF_RANGE"), ", Message: ", strconv.Quote(fmt.Sprintf("needs at least %d elements", lo.Uint())), "}")
				gf.P("}")
			}
			if hi, ok := field(rules, "max_items"); ok {
				gf.P("if len(x.", f.GoName, ") > ", hi.Uint(), " {")
				gf.P("return &", w.violationIdent(), "{Path: ", path, ", Reason: ", w.reasonIdent("OUT_OF_RANGE"), ", Message: ", strconv.Quote(fmt.Sprintf("has more than %d elements", hi.Uint())), "}")
				gf.P("}")
			}
		}
		if !nested && !hasItemRules(w.g.opts, fd) {
			return nil
		}
		gf.P("for i, e := range x.", f.GoName, " {")
		itoa := w.ident("Itoa", "strconv")
		if err := w.value(fd, rules, nested, "e", path+"+\"/\"+"+itoa+"(i)"); err != nil {
			return err
		}
		gf.P("}")
	case fd.IsMap():
		sortIdent := w.ident("Sorted", "slices")
		keysIdent := w.ident("Keys", "maps")
		gf.P("for _, k := range ", sortIdent, "(", keysIdent, "(x.", f.GoName, ")) {")
		gf.P("e := x.", f.GoName, "[k]")
		if err := w.value(fd.MapValue(), rules, nested, "e", path+"+\"/\"+escapeRulePointer(k)"); err != nil {
			return err
		}
		gf.P("}")
		w.usesPointerEscape = true
	case fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic():
		gf.P("if o, ok := x.", f.Oneof.GoName, ".(*", gf.QualifiedGoIdent(f.GoIdent), "); ok {")
		if err := w.value(fd, rules, nested, "o."+f.GoName, path); err != nil {
			return err
		}
		gf.P("}")
	case fd.HasPresence() && fd.Kind() != protoreflect.MessageKind:
		gf.P("if x.", f.GoName, " != nil {")
		if err := w.value(fd, rules, nested, "*x."+f.GoName, path); err != nil {
			return err
		}
		gf.P("}")
	default:
		if err := w.value(fd, rules, nested, "x."+f.GoName, path); err != nil {
			return err
		}
	}
	return nil
}

// hasItemRules says whether a list field's rules check its elements.
func hasItemRules(o *options, fd protoreflect.FieldDescriptor) bool {
	r := o.get(fd, rulesOption)
	if r == nil {
		return false
	}
	for _, name := range []string{"minimum", "maximum", "exclusive_minimum", "min_length", "max_length", "pattern", "domain"} {
		if _, ok := field(r, name); ok {
			return true
		}
	}
	return false
}

// value writes the checks of one value v (a Go expression) at path (a Go
// string expression).
func (w *ruleWriter) value(fd protoreflect.FieldDescriptor, rules protoreflect.Message, nested bool, v, path string) error {
	gf := w.gf
	fail := func(cond, reason, msg string) {
		gf.P("if ", cond, " {")
		gf.P("return &", w.violationIdent(), "{Path: ", path, ", Reason: ", w.reasonIdent(reason), ", Message: ", strconv.Quote(msg), "}")
		gf.P("}")
	}
	if nested {
		gf.P("if r := ", v, ".CheckRules(); r != nil {")
		gf.P("return r.Under(", path, ")")
		gf.P("}")
	}
	if rules == nil {
		return nil
	}
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind,
		protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		f := "float64(" + v + ")"
		if lo, ok := field(rules, "minimum"); ok {
			fail(f+" < "+floatLit(lo.Float()), "OUT_OF_RANGE", "must be at least "+fmtNum(lo.Float()))
		}
		if hi, ok := field(rules, "maximum"); ok {
			fail(f+" > "+floatLit(hi.Float()), "OUT_OF_RANGE", "must be at most "+fmtNum(hi.Float()))
		}
		if lo, ok := field(rules, "exclusive_minimum"); ok {
			fail(f+" <= "+floatLit(lo.Float()), "OUT_OF_RANGE", "must be more than "+fmtNum(lo.Float()))
		}
		if d, ok := w.g.opts.domains[protoreflect.EnumNumber(enumNumber(rules, "domain"))]; ok && len(d.integers) > 0 {
			var cases []string
			for _, n := range d.integers {
				cases = append(cases, strconv.FormatInt(n, 10))
			}
			gf.P("switch ", v, " {")
			gf.P("case ", strings.Join(cases, ", "), ":")
			gf.P("default:")
			gf.P("return &", w.violationIdent(), "{Path: ", path, ", Reason: ", w.reasonIdent("INVALID"), ", Message: ", strconv.Quote("is not one of "+strings.Join(cases, ", ")), "}")
			gf.P("}")
		}
	case protoreflect.StringKind:
		count := w.ident("RuneCountInString", "unicode/utf8")
		if lo, ok := field(rules, "min_length"); ok {
			fail(fmt.Sprintf("%s(%s) < %d", count, v, lo.Uint()), "OUT_OF_RANGE", fmt.Sprintf("must be at least %d characters long", lo.Uint()))
		}
		if hi, ok := field(rules, "max_length"); ok {
			fail(fmt.Sprintf("%s(%s) > %d", count, v, hi.Uint()), "OUT_OF_RANGE", fmt.Sprintf("must be at most %d characters long", hi.Uint()))
		}
		if p := str(rules, "pattern"); p != "" {
			fail("!"+w.pattern(p)+".MatchString("+v+")", "INVALID", "does not match "+p)
		}
		if d, ok := w.g.opts.domains[protoreflect.EnumNumber(enumNumber(rules, "domain"))]; ok && len(d.names) > 0 {
			w.use(d)
			fail("!"+domainFunc(d)+"("+v+")", "INVALID", "is not one of "+strings.Join(d.names, ", ")+" (case does not matter)")
		}
	}
	return nil
}

func (w *ruleWriter) pattern(p string) string {
	if name, ok := w.patterns[p]; ok {
		return name
	}
	name := "rulePattern" + strconv.Itoa(len(w.patterns))
	w.patterns[p] = name
	w.order = append(w.order, p)
	return name
}

func (w *ruleWriter) use(d domain) {
	n := int32(d.value.Number())
	for _, x := range w.domains {
		if x == n {
			return
		}
	}
	w.domains = append(w.domains, n)
}

func domainFunc(d domain) string {
	return "in" + goName(strings.ToLower(strings.TrimPrefix(string(d.value.Name()), "VALUE_DOMAIN_")))
}

// helpers writes the compiled patterns and the domain tests the checks use.
func (w *ruleWriter) helpers() {
	gf := w.gf
	if len(w.order) > 0 {
		compile := w.ident("MustCompile", "regexp")
		gf.P("var (")
		for _, p := range w.order {
			gf.P(w.patterns[p], " = ", compile, "(", strconv.Quote(p), ")")
		}
		gf.P(")")
		gf.P()
	}
	sort.Slice(w.domains, func(i, j int) bool { return w.domains[i] < w.domains[j] })
	for _, n := range w.domains {
		d := w.g.opts.domains[protoreflect.EnumNumber(n)]
		gf.P("// ", domainFunc(d), " reports whether s is a member of ", d.value.Name(), ", ignoring the case")
		gf.P("// of ASCII letters.")
		gf.P("func ", domainFunc(d), "(s string) bool {")
		gf.P("for _, n := range [...]string{", quoteAll(d.names), "} {")
		gf.P("if equalFoldASCII(s, n) {")
		gf.P("return true")
		gf.P("}")
		gf.P("}")
		gf.P("return false")
		gf.P("}")
		gf.P()
		w.usesFold = true
	}
	if w.usesFold {
		gf.P("// equalFoldASCII reports whether a and b are equal when ASCII letters")
		gf.P("// are compared without case.")
		gf.P("func equalFoldASCII(a, b string) bool {")
		gf.P("if len(a) != len(b) {")
		gf.P("return false")
		gf.P("}")
		gf.P("for i := 0; i < len(a); i++ {")
		gf.P("x, y := a[i], b[i]")
		gf.P("if 'A' <= x && x <= 'Z' {")
		gf.P("x += 'a' - 'A'")
		gf.P("}")
		gf.P("if 'A' <= y && y <= 'Z' {")
		gf.P("y += 'a' - 'A'")
		gf.P("}")
		gf.P("if x != y {")
		gf.P("return false")
		gf.P("}")
		gf.P("}")
		gf.P("return true")
		gf.P("}")
		gf.P()
	}
	if w.usesPointerEscape {
		replace := w.ident("ReplaceAll", "strings")
		gf.P("// escapeRulePointer escapes a key for an RFC 6901 pointer.")
		gf.P("func escapeRulePointer(key string) string {")
		gf.P("return ", replace, "(", replace, "(key, \"~\", \"~0\"), \"/\", \"~1\")")
		gf.P("}")
	}
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func floatLit(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// escapePointer escapes a key for an RFC 6901 pointer.
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}
