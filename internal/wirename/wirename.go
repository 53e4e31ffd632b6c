// Package wirename holds the naming rules of cadbridge's JSON wire that both
// the contract generator and the runtime codec follow.
package wirename

import (
	"strings"
	"unicode"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// EnumValue is the wire name of an enum value: the value name without the
// enum's upper-snake-case prefix, in lower case. ERROR_KIND_STALE_REVISION of
// enum ErrorKind is "stale_revision".
func EnumValue(ev protoreflect.EnumValueDescriptor) string {
	prefix := upperSnake(string(ev.Parent().Name())) + "_"
	return strings.ToLower(strings.TrimPrefix(string(ev.Name()), prefix))
}

// IsUnspecified reports whether ev is the enum's zero value, which never
// appears on the wire.
func IsUnspecified(ev protoreflect.EnumValueDescriptor) bool {
	return ev.Number() == 0
}

func upperSnake(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// Required reports whether a field must be present on the wire: singular
// fields are required unless declared optional or part of a oneof; lists and
// maps may always be omitted.
func Required(fd protoreflect.FieldDescriptor) bool {
	if fd.IsList() || fd.IsMap() {
		return false
	}
	return !fd.HasOptionalKeyword() && fd.ContainingOneof() == nil
}
