package contractgen

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// valueDomainEnum is the enum whose values name the value domains; each
// value's (cad.engine.v1.domain) option lists its members.
const valueDomainEnum = "cad.engine.v1.ValueDomain"

// domain is the members of one value domain: names (matched ignoring
// case) or integers.
type domain struct {
	value    protoreflect.EnumValueDescriptor
	names    []string
	integers []int64
}

// readDomains reads the members of every value of cad.engine.v1.ValueDomain
// in files (none when no file declares it). It refuses a value other than
// UNSPECIFIED without members, with both names and integers, or with a
// name that is not printable ASCII or that repeats another ignoring case.
func readDomains(o *options, files []protoreflect.FileDescriptor) (map[protoreflect.EnumNumber]domain, error) {
	ed := findEnum(files, valueDomainEnum)
	if ed == nil {
		return nil, nil
	}
	domains := map[protoreflect.EnumNumber]domain{}
	values := ed.Values()
	for i := 0; i < values.Len(); i++ {
		ev := values.Get(i)
		opt := o.get(ev, domainOption)
		if ev.Number() == 0 {
			if opt != nil {
				return nil, fmt.Errorf("value domain %s: the unspecified value has no members", ev.Name())
			}
			continue
		}
		if opt == nil {
			return nil, fmt.Errorf("value domain %s: no (%s) option lists its members", ev.Name(), domainOption)
		}
		d := domain{value: ev, names: strs(opt, "names"), integers: ints(opt, "integers")}
		if (len(d.names) == 0) == (len(d.integers) == 0) {
			return nil, fmt.Errorf("value domain %s: give names or integers (one of the two)", ev.Name())
		}
		seen := map[string]bool{}
		for _, n := range d.names {
			if n == "" || strings.IndexFunc(n, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
				return nil, fmt.Errorf("value domain %s: name %q is not printable ASCII", ev.Name(), n)
			}
			if seen[strings.ToUpper(n)] {
				return nil, fmt.Errorf("value domain %s: name %q repeats another ignoring case", ev.Name(), n)
			}
			seen[strings.ToUpper(n)] = true
		}
		domains[ev.Number()] = d
	}
	return domains, nil
}

// checkFieldDomains refuses a (rules).domain that names no domain, that
// does not fit the field's type (names for strings, integers within range
// for integers), or that comes with a pattern of its own.
func checkFieldDomains(o *options, files []*protogen.File) error {
	var check func(ms []*protogen.Message) error
	check = func(ms []*protogen.Message) error {
		for _, m := range ms {
			for _, f := range m.Fields {
				if err := checkFieldDomain(o, f.Desc); err != nil {
					return fmt.Errorf("field %s: %w", f.Desc.FullName(), err)
				}
			}
			if err := check(m.Messages); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range files {
		if err := check(f.Messages); err != nil {
			return err
		}
	}
	return nil
}

func checkFieldDomain(o *options, fd protoreflect.FieldDescriptor) error {
	rules := o.get(fd, rulesOption)
	if rules == nil {
		return nil
	}
	n := protoreflect.EnumNumber(enumNumber(rules, "domain"))
	if n == 0 {
		return nil
	}
	d, ok := o.domains[n]
	if !ok {
		return fmt.Errorf("domain %d is not a value of %s with members", n, valueDomainEnum)
	}
	if str(rules, "pattern") != "" {
		return fmt.Errorf("a field with a domain (%s) cannot have a pattern too", d.value.Name())
	}
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	lo, hi, isInt := integerRange(fd.Kind())
	switch {
	case fd.Kind() == protoreflect.StringKind:
		if len(d.names) == 0 {
			return fmt.Errorf("domain %s has integers; a string field needs names", d.value.Name())
		}
	case isInt:
		if len(d.integers) == 0 {
			return fmt.Errorf("domain %s has names; an integer field needs integers", d.value.Name())
		}
		for _, v := range d.integers {
			if float64(v) < lo || float64(v) > hi {
				return fmt.Errorf("domain %s: %d does not fit a %s field", d.value.Name(), v, fd.Kind())
			}
		}
	default:
		return fmt.Errorf("a %s field cannot have a domain (%s)", fd.Kind(), d.value.Name())
	}
	return nil
}

// integerRange is the range of an integer kind; ok is false for other
// kinds.
func integerRange(k protoreflect.Kind) (lo, hi float64, ok bool) {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return math.MinInt32, math.MaxInt32, true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return 0, math.MaxUint32, true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return math.MinInt64, math.MaxInt64, true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return 0, math.MaxUint64, true
	}
	return 0, 0, false
}

// namesPattern is a regular expression, valid in ECMA-262 (JSON Schema's
// dialect) and in Go, that matches exactly the names ignoring ASCII case,
// their common beginnings written once: "ByLayer", "ByBlock" become
// ^(?:[Bb][Yy](?:[Ll][Aa][Yy][Ee][Rr]|[Bb][Ll][Oo][Cc][Kk]))$.
func namesPattern(names []string) string {
	root := &trieNode{}
	for _, n := range names {
		node := root
		for _, r := range strings.ToLower(n) {
			node = node.child(r)
		}
		node.end = true
	}
	return "^" + root.pattern(true) + "$"
}

// trieNode is a node of the trie of a domain's names, lower-cased: the
// pattern shares their common beginnings, so that a domain of many names
// costs a reader (and a model) little, and matches exactly the names,
// ignoring case.
type trieNode struct {
	runes    []rune // the children's letters, in the names' order
	children map[rune]*trieNode
	end      bool // a name ends here
}

func (n *trieNode) child(r rune) *trieNode {
	if c, ok := n.children[r]; ok {
		return c
	}
	if n.children == nil {
		n.children = map[rune]*trieNode{}
	}
	c := &trieNode{}
	n.children[r] = c
	n.runes = append(n.runes, r)
	return c
}

// pattern is the regular expression of what follows n; root groups it
// even when it has one alternative, for the anchors around it.
func (n *trieNode) pattern(root bool) string {
	var alts []string
	for _, r := range n.runes {
		alts = append(alts, letterClass(r)+n.children[r].pattern(false))
	}
	switch {
	case len(alts) == 0:
		return ""
	case n.end:
		return "(?:" + strings.Join(alts, "|") + ")?"
	case len(alts) == 1 && !root:
		return alts[0]
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// letterClass matches r in either case.
func letterClass(r rune) string {
	lower, upper := strings.ToLower(string(r)), strings.ToUpper(string(r))
	if lower != upper {
		return "[" + upper + lower + "]"
	}
	return regexp.QuoteMeta(string(r))
}

// findEnum is the enum named full in files, or nil.
func findEnum(files []protoreflect.FileDescriptor, full protoreflect.FullName) protoreflect.EnumDescriptor {
	for _, f := range files {
		if d := f.Enums().ByName(full.Name()); d != nil && d.FullName() == full {
			return d
		}
	}
	return nil
}

// domainTable writes the Go table of the value domains of a file that
// declares cad.engine.v1.ValueDomain.
func (g *generator) domainTable(f *protogen.File) {
	var ed *protogen.Enum
	for _, e := range f.Enums {
		if e.Desc.FullName() == valueDomainEnum {
			ed = e
		}
	}
	if ed == nil {
		return
	}
	gf := g.plugin.NewGeneratedFile(f.GeneratedFilenamePrefix+".contract.go", f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	gf.P("// DomainInfo is the members of one ValueDomain, generated from its")
	gf.P("// (cad.engine.v1.domain) option.")
	gf.P("type DomainInfo struct {")
	gf.P("// Domain is the domain.")
	gf.P("Domain ", ed.GoIdent.GoName)
	gf.P("// Names are the allowed strings in their canonical spelling; a value")
	gf.P("// matches one ignoring case. Empty for a domain of integers.")
	gf.P("Names []string")
	gf.P("// Integers are the allowed integers; empty for a domain of names.")
	gf.P("Integers []int64")
	gf.P("}")
	gf.P()
	gf.P("// Domains is every ValueDomain but UNSPECIFIED, in declaration order.")
	gf.P("var Domains = []DomainInfo{")
	for _, v := range ed.Values {
		d, ok := g.opts.domains[v.Desc.Number()]
		if !ok {
			continue
		}
		gf.P("{")
		gf.P("Domain: ", v.GoIdent.GoName, ",")
		if len(d.names) > 0 {
			gf.P("Names: ", goStrings(d.names), ",")
		}
		if len(d.integers) > 0 {
			gf.P("Integers: ", goInts(d.integers), ",")
		}
		gf.P("},")
	}
	gf.P("}")
	gf.P()
	gf.P("// LookupDomain is the members of d; ok is false for UNSPECIFIED and")
	gf.P("// numbers that are not a domain.")
	gf.P("func LookupDomain(d ", ed.GoIdent.GoName, ") (info DomainInfo, ok bool) {")
	gf.P("for _, di := range Domains {")
	gf.P("if di.Domain == d {")
	gf.P("return di, true")
	gf.P("}")
	gf.P("}")
	gf.P("return DomainInfo{}, false")
	gf.P("}")
}

func goStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

func goInts(is []int64) string {
	q := make([]string, len(is))
	for i, v := range is {
		q[i] = fmt.Sprint(v)
	}
	return "[]int64{" + strings.Join(q, ", ") + "}"
}
