package drawing

import (
	"fmt"
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Settings are a document's drawing settings that DXF keeps as HEADER
// variables, beside the linetype scale (which the linetype table holds,
// see Linetypes): its units ($INSUNITS), the decimal places of lengths
// ($LUPREC), the dimension scale ($DIMSCALE) and the default text height
// ($TEXTSIZE). A document that never changed them has none (nil): its
// units are Document.Units and the rest AutoCAD's defaults (see
// DefaultSettings), so nothing is stored or hashed for it. Like a layer,
// Settings in a document are never changed in place.
//
// They are stored under a handle of their own, like the linetype table
// (tag 'H', see Encode); a document's Units follow them.
type Settings struct {
	Handle     uint64
	Units      enginev1.Units
	Precision  int32   // 0–8
	DimScale   float64 // > 0
	TextHeight float64 // > 0
	digest     [32]byte
}

// DefaultSettings are the settings of a document in units u that has none
// of its own: 4 decimal places, dimension scale 1 and text 2.5 high (the
// height text is created with, see DefaultTextHeight).
func DefaultSettings(u enginev1.Units) Settings {
	return Settings{Units: u, Precision: 4, DimScale: 1, TextHeight: DefaultTextHeight}
}

// Valid reports whether every setting is in its range.
func (s Settings) Valid() bool {
	positive := func(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
	return s.Precision >= 0 && s.Precision <= 8 && positive(s.DimScale) && positive(s.TextHeight)
}

// Encode is the settings' stored form: 'H' 0x01, units (int32),
// precision (int32), dimension scale and text height.
func (s *Settings) Encode() []byte {
	w := encoder{}
	w.byte(tagHeader)
	w.byte(encVersion)
	w.int32(int32(s.Units))
	w.int32(s.Precision)
	w.float(s.DimScale)
	w.float(s.TextHeight)
	return w.b
}

// decodeSettings reads settings' stored form back.
func decodeSettings(handle uint64, data []byte) (*Settings, error) {
	r := &decoder{b: data}
	if r.byte() != tagHeader || r.byte() != encVersion {
		return nil, fmt.Errorf("settings %s: unknown encoding", FormatHandle(handle))
	}
	s := &Settings{Handle: handle, Units: enginev1.Units(r.int32()), Precision: r.int32(), DimScale: r.float(), TextHeight: r.float()}
	if r.err != nil || len(r.b) != 0 || !s.Valid() {
		return nil, fmt.Errorf("settings %s: truncated or malformed", FormatHandle(handle))
	}
	return s, nil
}

// Settings are the document's drawing settings: its own, else the
// defaults in its units.
func (d *Document) Settings() Settings {
	if d.settings != nil {
		return *d.settings
	}
	return DefaultSettings(d.Units)
}

// OwnSettings are the settings the document holds, nil when it has none
// of its own.
func (d *Document) OwnSettings() *Settings { return d.settings }

// SetSettings makes s the document's settings, and its units s's, or
// leaves the document without settings of its own for nil (its units
// stay): for loaders that build a new drawing, which it bypasses the undo
// log for. Settings without a handle take the next.
func (d *Document) SetSettings(s *Settings) {
	putTable(d, &d.settings, s)
	if s != nil {
		d.Units = s.Units
	}
}

// setSettings puts back a state of the settings and the units with them
// (see settingsState).
func (d *Document) setSettings(st settingsState) {
	d.SetSettings(st.settings)
	d.Units = st.units
}

// settingsState is what undo puts back: the settings, and the units, which
// settings of nil leave as they are.
type settingsState struct {
	settings *Settings
	units    enginev1.Units
}

// SetSettings replaces the document's settings by s, in the undo log; s
// takes the handle of the settings it replaces, or a new one.
func (tx *Tx) SetSettings(s *Settings) {
	old := tx.d.settings
	inherit(old, s)
	before := settingsState{old, tx.d.Units}
	tx.d.SetSettings(s)
	tx.log = append(tx.log, Change{Kind: ChangeSettings, Handle: s.Handle, undo: &undoOther{settings: &before}})
}
