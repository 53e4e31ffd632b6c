package contract

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema of a generated contract.
type Schema struct {
	schema *jsonschema.Schema
	// names are the members of each value domain of names, by the pattern
	// that matches them (see namesByPattern).
	names map[string][]string
}

// CompileSchema compiles a generated JSON Schema document; name identifies
// it in errors.
func CompileSchema(name, doc string) (*Schema, error) {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("contract: schema %s: %w", name, err)
	}
	url := "mem:///" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, fmt.Errorf("contract: schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("contract: schema %s: %w", name, err)
	}
	names := map[string][]string{}
	namesByPattern(v, names)
	return &Schema{schema: s, names: names}, nil
}

// namesByPattern finds the value domains of names in a schema document: a
// schema with a pattern and string examples, which is how the generator
// writes a (cad.engine.v1.rules).domain of names (the pattern matches
// exactly the examples, ignoring case). A violation of the pattern then
// names them.
func namesByPattern(v any, out map[string][]string) {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["pattern"].(string); ok {
			if ex, ok := x["examples"].([]any); ok {
				var names []string
				for _, e := range ex {
					if n, ok := e.(string); ok {
						names = append(names, n)
					}
				}
				out[p] = names
			}
		}
		for _, e := range x {
			namesByPattern(e, out)
		}
	case []any:
		for _, e := range x {
			namesByPattern(e, out)
		}
	}
}

// MustCompileSchema is CompileSchema for generated schemas, which always
// compile; it panics otherwise.
func MustCompileSchema(name, doc string) *Schema {
	s, err := CompileSchema(name, doc)
	if err != nil {
		panic(err)
	}
	return s
}

// Validate checks a generic JSON value (as ParseJSON returns) and reports
// the first violation, ordered by path, or nil.
func (s *Schema) Validate(v any) *Violation {
	err := s.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Violation{Reason: ReasonInvalid, Message: err.Error()}
	}
	var found []*Violation
	s.collect(ve, &found)
	if len(found) == 0 {
		return &Violation{Reason: ReasonInvalid, Message: ve.Error()}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Path != found[j].Path {
			return found[i].Path < found[j].Path
		}
		return found[i].Reason < found[j].Reason
	})
	return found[0]
}

func (s *Schema) collect(ve *jsonschema.ValidationError, out *[]*Violation) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			s.collect(c, out)
		}
		return
	}
	if v := s.violation(ve); v != nil {
		*out = append(*out, v)
	}
}

func (s *Schema) violation(ve *jsonschema.ValidationError) *Violation {
	path := pointer(ve.InstanceLocation)
	msg := ve.ErrorKind.LocalizedString(printer)
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		return &Violation{Path: path + "/" + escape(props[0]), Reason: ReasonUnknownField, Message: "unknown field " + props[0]}
	case *kind.Required:
		missing := append([]string(nil), k.Missing...)
		sort.Strings(missing)
		return &Violation{Path: path + "/" + escape(missing[0]), Reason: ReasonMissing, Message: missing[0] + " is required"}
	case *kind.Type:
		return &Violation{Path: path, Reason: ReasonWrongType, Message: msg}
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum,
		*kind.MinLength, *kind.MaxLength, *kind.MinItems, *kind.MaxItems:
		return &Violation{Path: path, Reason: ReasonOutOfRange, Message: msg}
	case *kind.Pattern:
		if names, ok := s.names[k.Want]; ok && len(names) > 0 {
			msg = fmt.Sprintf("%q is not one of %s (case does not matter)", k.Got, strings.Join(names, ", "))
		}
		return &Violation{Path: path, Reason: ReasonInvalid, Message: msg}
	case *kind.Group, *kind.Schema, *kind.Reference:
		return nil
	default:
		return &Violation{Path: path, Reason: ReasonInvalid, Message: msg}
	}
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}
