package engine

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Editing text (DESIGN §11): one text's string, height or rotation
// (text_edit), and a string replaced in every text of the document
// (text_find_replace).

// textEdit changes a line of text, a multi-line text or an attribute
// definition (whose text is its default value); what is not given stays.
func textEdit(c *call, a *enginev1.TextEditArgs) (*enginev1.TextEditResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if a.Text == nil && a.Height == nil && a.Rotation == nil {
		return nil, invalidArgs("", reasonMissing, "give text, height or rotation to change")
	}
	edit := func(text *string, height, rotation *float64) {
		if a.Text != nil {
			*text = *a.Text
		}
		if a.Height != nil {
			*height = *a.Height
		}
		if a.Rotation != nil {
			*rotation = geom.NormDeg(*a.Rotation)
		}
	}
	var g drawing.Geometry
	switch old := e.Geom.(type) {
	case drawing.Text:
		edit(&old.Text, &old.Height, &old.Rotation)
		g = old
	case drawing.MText:
		text := old.Text
		edit(&text, &old.Height, &old.Rotation)
		g = old.WithText(text)
	case drawing.Attdef:
		edit(&old.Text.Text, &old.Text.Height, &old.Text.Rotation)
		g = old
	default:
		return nil, failed("entity %s is a %s, not text (an insert's attribute values are set with block_attributes_set)", handleResult(e), e.Geom.Kind().WireName())
	}
	next := e.With(g)
	if err := c.tx.Replace(e, next); err != nil {
		return nil, err
	}
	return &enginev1.TextEditResult{Handle: handleResult(next)}, nil
}

// finder finds a literal string in text, ignoring case unless asked, and
// only as a whole word when asked.
type finder struct {
	re    *regexp.Regexp
	whole bool
}

func newFinder(find string, matchCase, wholeWord bool) finder {
	pattern := regexp.QuoteMeta(find)
	if !matchCase {
		pattern = "(?i)" + pattern
	}
	return finder{re: regexp.MustCompile(pattern), whole: wholeWord}
}

// replace replaces every occurrence in s, from the left, and says how
// many; an occurrence that is not a whole word (when whole words are
// asked) is passed over, and the search goes on from its next character.
func (f finder) replace(s, with string) (string, int) {
	var b strings.Builder
	n, last, pos := 0, 0, 0
	for pos < len(s) {
		loc := f.re.FindStringIndex(s[pos:])
		if loc == nil {
			break
		}
		i, j := pos+loc[0], pos+loc[1]
		if f.whole && (wordBefore(s, i) || wordAfter(s, j)) {
			_, size := utf8.DecodeRuneInString(s[i:])
			pos = i + max(size, 1)
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(with)
		n++
		last, pos = j, max(j, i+1)
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// isWord reports whether r is part of a word: a letter, a digit or _.
func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordBefore reports whether a word character ends right before s[i].
func wordBefore(s string, i int) bool {
	r, size := utf8.DecodeLastRuneInString(s[:i])
	return size > 0 && isWord(r)
}

// wordAfter reports whether a word character starts at s[j].
func wordAfter(s string, j int) bool {
	r, size := utf8.DecodeRuneInString(s[j:])
	return size > 0 && isWord(r)
}

// replaced is the geometry of a text or an insert with the finder's
// occurrences replaced, and how many there were; 0 for other entities.
func (f finder) replaced(g drawing.Geometry, with string) (drawing.Geometry, int) {
	switch g := g.(type) {
	case drawing.Text:
		var n int
		g.Text, n = f.replace(g.Text, with)
		return g, n
	case drawing.MText:
		s, n := f.replace(g.Text, with)
		return g.WithText(s), n
	case drawing.Insert:
		total := 0
		var attribs []drawing.Attrib
		for i, at := range g.Attribs {
			s, n := f.replace(at.Text.Text, with)
			if n == 0 {
				continue
			}
			if attribs == nil { // the entity's own slice is never changed
				attribs = append([]drawing.Attrib(nil), g.Attribs...)
			}
			attribs[i].Text.Text = s
			total += n
		}
		if total > 0 {
			g.Attribs = attribs
		}
		return g, total
	}
	return g, 0
}

// textFindReplace replaces a string in every line of text, multi-line
// text and insert's attribute value, in model space and the layouts. A
// text on a locked layer is not changed but listed as skipped, so that one
// locked title block does not stop the rest.
func textFindReplace(c *call, a *enginev1.TextFindReplaceArgs) (*enginev1.TextFindReplaceResult, error) {
	layer := ""
	if a.Layer != nil {
		l := c.d.LayerFold(*a.Layer)
		if l == nil {
			return nil, failed("the document has no layer %q", *a.Layer)
		}
		layer = l.Name
	}
	f := newFinder(a.Find, a.GetMatchCase(), a.GetWholeWord())
	type change struct {
		e    *drawing.Entity
		g    drawing.Geometry
		hits int
	}
	var changes []change
	res := &enginev1.TextFindReplaceResult{Handles: []string{}, Skipped: []string{}}
	err := c.walk(true, func(e *drawing.Entity) error {
		if layer != "" && e.Layer != layer {
			return nil
		}
		g, n := f.replaced(e.Geom, a.Replace)
		if n == 0 {
			return nil
		}
		if l := c.d.Layer(e.Layer); l != nil && l.Locked {
			res.Skipped = append(res.Skipped, handleResult(e))
			return nil
		}
		changes = append(changes, change{e, g, n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The document changes once the walk is over (see drawing.Document.Each).
	for _, ch := range changes {
		if err := c.tx.Replace(ch.e, ch.e.With(ch.g)); err != nil {
			return nil, err
		}
		res.Count += int64(ch.hits)
		res.Handles = append(res.Handles, handleResult(ch.e))
	}
	return res, nil
}
