package drawing_test

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// TestTemplates: every template's layers have names a layer may have,
// unique ignoring case, colours of the ACI palette, and the linetypes and
// lineweights layer_create accepts.
func TestTemplates(t *testing.T) {
	for _, tp := range drawing.Templates {
		seen := map[string]bool{}
		for _, l := range tp.Layers {
			if err := drawing.CheckLayerName(l.Name); err != nil {
				t.Errorf("%s: layer %q: %v", tp.Name, l.Name, err)
			}
			if seen[strings.ToUpper(l.Name)] {
				t.Errorf("%s: layer %q twice", tp.Name, l.Name)
			}
			seen[strings.ToUpper(l.Name)] = true
			if lt, ok := drawing.CanonicalLinetype(l.Linetype, false); !ok || lt != l.Linetype {
				t.Errorf("%s: layer %s: linetype %q is not a layer linetype as the engine spells it", tp.Name, l.Name, l.Linetype)
			}
			if !drawing.ValidLineweight(l.Lineweight) || l.Lineweight <= 0 {
				t.Errorf("%s: layer %s: lineweight %d", tp.Name, l.Name, l.Lineweight)
			}
			if l.Color < 1 || l.Color > 255 || !l.On || l.Frozen || l.Locked {
				t.Errorf("%s: layer %s: colour %d, on %v, frozen %v, locked %v", tp.Name, l.Name, l.Color, l.On, l.Frozen, l.Locked)
			}
		}
		if got, ok := drawing.TemplateNamed(strings.ToUpper(tp.Name)); !ok || got.Name != tp.Name {
			t.Errorf("TemplateNamed(%q) = %q, %v", strings.ToUpper(tp.Name), got.Name, ok)
		}
	}
}
