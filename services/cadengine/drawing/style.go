package drawing

import (
	"errors"
	"fmt"
	"strings"
)

// LinetypeNames lists the linetypes the engine knows, for error messages.
const LinetypeNames = "ByLayer, ByBlock, Continuous, DASHED, HIDDEN, CENTER, DOT, DASHDOT, PHANTOM, BORDER, DIVIDE, and each of the last eight with 2 or X2 after it"

// CanonicalLinetype spells a known linetype the standard way (names match
// ignoring case): ByLayer, ByBlock, or a standard linetype (see
// StandardLinetypes). ByLayer and ByBlock are entity linetypes only.
func CanonicalLinetype(s string, forEntity bool) (string, bool) {
	switch u := strings.ToUpper(s); u {
	case "BYLAYER":
		return "ByLayer", forEntity
	case "BYBLOCK":
		return "ByBlock", forEntity
	case "CONTINUOUS":
		return "Continuous", true
	default:
		base := strings.TrimSuffix(strings.TrimSuffix(u, "X2"), "2")
		if len(base) < len(u)-2 { // both suffixes: DASHEDX22
			return "", false
		}
		switch base {
		case "DASHED", "HIDDEN", "CENTER", "DOT", "DASHDOT", "PHANTOM", "BORDER", "DIVIDE":
			return u, true
		}
	}
	return "", false
}

// ValidLineweight reports whether w is a DXF lineweight: -3 (default) or
// one of the standard widths in hundredths of a millimetre.
func ValidLineweight(w int32) bool {
	switch w {
	case -3, 0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120, 140, 158, 200, 211:
		return true
	}
	return false
}

// CheckLayerName rejects names DXF cannot hold.
func CheckLayerName(name string) error {
	if strings.TrimSpace(name) != name || name == "" {
		return errors.New("a layer name cannot be empty or start or end with a space")
	}
	if i := strings.IndexAny(name, "<>/\\\":;?*|=`"); i >= 0 {
		return fmt.Errorf("a layer name cannot contain %q", name[i])
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return errors.New("a layer name cannot contain control characters")
		}
	}
	return nil
}
