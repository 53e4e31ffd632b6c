package drawing

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MTEXT's inline formatting, as MText.Markup holds it: DXF's MTEXT
// content with what is DXF's encoding rather than formatting already
// read (\U+XXXX, %%c, %%d, %%p and caret notation are the characters
// they stand for, \X is \P). What is left is characters, the escapes \\,
// \{, \} and \~ (a non-breaking space), \P (a paragraph's end), \N (a
// column break), grouping braces, and the formatting codes: \f and \F
// (font), \H (height, "x" after it relative), \W (width factor), \Q
// (oblique), \T (tracking), \C and \c (colour), \A (vertical
// alignment), \p (paragraph), each ended by ";", \L \l \O \o \K \k
// (under, over and strike lines on and off), and \S (a stack, a/b, a#b
// or a^b, ended by ";").

// A markupToken is one piece of markup: a character (code 0; its text
// the character, escapes read), a brace ('{', '}'), or a code (its
// letter, its text the argument before its ";").
type markupToken struct {
	code byte
	text string
}

// markupArgs are the codes that take an argument ended by ";" (the
// lower-case h, w, q, t and a are read and dropped, as AutoCAD's older
// codes; c is a true colour).
const markupArgs = "fFHhWwQqTtCcAapS"

// markupFlags are the codes without an argument.
const markupFlags = "LlOoKkPN~"

// scanMarkup calls yield with each token of s, in order; raw is the
// token as s writes it.
func scanMarkup(s string, yield func(t markupToken, raw string)) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' || c == '}':
			yield(markupToken{code: c}, s[i:i+1])
			i++
			continue
		case c != '\\' || i+1 >= len(s):
			_, n := utf8.DecodeRuneInString(s[i:])
			yield(markupToken{text: s[i : i+n]}, s[i:i+n])
			i += n
			continue
		}
		code := s[i+1]
		switch {
		case code == '\\' || code == '{' || code == '}':
			yield(markupToken{text: string(code)}, s[i:i+2])
			i += 2
		case strings.IndexByte(markupFlags, code) >= 0:
			yield(markupToken{code: code}, s[i:i+2])
			i += 2
		case strings.IndexByte(markupArgs, code) >= 0:
			end := argumentEnd(s[i+2:], code == 'S')
			next := min(len(s), i+2+end+1)
			yield(markupToken{code: code, text: s[i+2 : i+2+end]}, s[i:next])
			i = next
		default:
			// Not a code: the backslash is a character of its own.
			yield(markupToken{text: `\`}, s[i:i+1])
			i++
		}
	}
}

// argumentEnd is where a code's argument in s ends: at its ";", or at
// the end; a stack's argument passes over escaped ones ("\;").
func argumentEnd(s string, escapes bool) int {
	for j := 0; j < len(s); j++ {
		switch {
		case escapes && s[j] == '\\' && j+1 < len(s):
			j++
		case s[j] == ';':
			return j
		}
	}
	return len(s)
}

// A stack is MTEXT's stacked text (\S): Top over Bottom with a bar
// ('/'), diagonally with a slanted bar ('#'), or as a tolerance without
// a bar ('^'); Kind 0 is no stack, Top alone.
type stack struct {
	top, bottom string
	kind        byte
}

// stackOf reads a stack's argument: the numerator up to the first
// unescaped /, # or ^, the denominator after it, escapes read.
func stackOf(arg string) stack {
	var st stack
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '\\' && i+1 < len(arg):
			i++
			b.WriteByte(arg[i])
		case st.kind == 0 && (c == '/' || c == '#' || c == '^'):
			st.kind, st.top = c, b.String()
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	if st.kind == 0 {
		st.top = b.String()
	} else {
		st.bottom = b.String()
	}
	return st
}

// plain is the stack as plain text: "top/bottom" whatever its kind.
func (st stack) plain() string {
	if st.kind == 0 {
		return st.top
	}
	return st.top + "/" + st.bottom
}

// MarkupText is the plain text of MTEXT markup (see MText.Markup):
// paragraphs end in "\n", a column break is ColumnBreak, a non-breaking
// space is a space, a stack is "top/bottom", and codes and braces are
// left out.
func MarkupText(markup string) string {
	var b strings.Builder
	scanMarkup(markup, func(t markupToken, _ string) {
		switch t.code {
		case 0:
			b.WriteString(t.text)
		case 'P':
			b.WriteByte('\n')
		case 'N':
			b.WriteString(ColumnBreak)
		case '~':
			b.WriteByte(' ')
		case 'S':
			b.WriteString(stackOf(t.text).plain())
		}
	})
	return b.String()
}

// PlainMarkup is plain text as markup without formatting: backslashes
// and braces escaped, "\n" as \P, ColumnBreak as \N. MarkupText reads
// it back as text.
func PlainMarkup(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\\' || r == '{' || r == '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\P`)
		case string(r) == ColumnBreak:
			b.WriteString(`\N`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// format is how a run of an MText's text is set: its capitals' height,
// its width factor, its glyphs' slant (degrees), its tracking (the
// factor its characters' advances are spread by), its font (as
// TextStyle.Font names one), its lines (strokeUnder, strokeOver,
// strokeStrike) and where it sits in a taller line (valign: 0 on the
// baseline, 1 in the middle, 2 at the top).
type format struct {
	height, width, oblique, tracking float64
	font                             string
	strokes                          uint8
	valign                           uint8
}

// The lines of format.strokes.
const (
	strokeUnder  = 1
	strokeOver   = 2
	strokeStrike = 4
)

// baseFormat is how the MText's text is set where its markup does not
// say otherwise.
func (g MText) baseFormat() format {
	return format{height: g.Height, width: g.Style.WidthFactor(), oblique: g.Style.Oblique, tracking: 1, font: g.Style.Font}
}

// A run is a piece of a paragraph in one format: characters (space: a
// breaking space, a line may wrap there), or a stack.
type run struct {
	text  string
	f     format
	space bool
	stack *stack
}

// A paragraph is the runs of one paragraph, the format in force where
// it ends (an empty paragraph is as tall as it says) and whether a
// column break ends it.
type paragraph struct {
	runs   []run
	end    format
	column bool
}

// paragraphs are the text's paragraphs: its markup read, or, without
// markup, its text in its base format.
func (g MText) paragraphs() []paragraph {
	if g.Markup != "" {
		return parseMarkup(g.Markup, g.baseFormat())
	}
	return parsePlain(g.Text, g.baseFormat())
}

// parsePlain splits text into paragraphs at "\n" and ColumnBreak, its
// characters in f, each white space character a breaking space.
func parsePlain(text string, f format) []paragraph {
	var b paragraphBuilder
	for _, r := range text {
		switch {
		case r == '\n' || string(r) == ColumnBreak:
			b.end(f, string(r) == ColumnBreak)
		default:
			b.add(string(r), f, unicode.IsSpace(r))
		}
	}
	return b.done(f)
}

// A paragraphBuilder gathers paragraphs run by run. The characters of
// the run that is growing are gathered in a buffer, so that a long word
// costs its length, not its length squared.
type paragraphBuilder struct {
	out  []paragraph
	cur  paragraph
	text []byte // the characters of cur's last run, while it grows
}

// add appends s in f to the paragraph, to its last run when that is
// alike.
func (b *paragraphBuilder) add(s string, f format, space bool) {
	if n := len(b.cur.runs); n > 0 && !space {
		if last := b.cur.runs[n-1]; !last.space && last.stack == nil && last.f == f {
			b.text = append(b.text, s...)
			return
		}
	}
	b.close()
	b.cur.runs = append(b.cur.runs, run{f: f, space: space})
	b.text = append(b.text, s...)
}

// addStack appends a stack in f to the paragraph.
func (b *paragraphBuilder) addStack(st stack, f format) {
	b.close()
	b.cur.runs = append(b.cur.runs, run{text: st.plain(), f: f, stack: &st})
}

// close gives the last run the characters gathered for it.
func (b *paragraphBuilder) close() {
	if n := len(b.cur.runs); n > 0 && len(b.text) > 0 {
		b.cur.runs[n-1].text = string(b.text)
		b.text = b.text[:0]
	}
}

// end ends the paragraph in the format f, by a column break or not.
func (b *paragraphBuilder) end(f format, column bool) {
	b.close()
	b.cur.end, b.cur.column = f, column
	b.out, b.cur = append(b.out, b.cur), paragraph{}
}

// done ends the last paragraph in the format f, and is the paragraphs.
func (b *paragraphBuilder) done(f format) []paragraph {
	b.end(f, false)
	return b.out
}

// parseMarkup reads markup (see MText.Markup) into paragraphs, its
// formats starting from base; braces keep the codes within them.
func parseMarkup(markup string, base format) []paragraph {
	var b paragraphBuilder
	f, saved := base, []format(nil)
	scanMarkup(markup, func(t markupToken, _ string) {
		switch t.code {
		case 0:
			r, _ := utf8.DecodeRuneInString(t.text)
			b.add(t.text, f, unicode.IsSpace(r))
		case '~':
			b.add(" ", f, false)
		case '{':
			saved = append(saved, f)
		case '}':
			if n := len(saved); n > 0 {
				f, saved = saved[n-1], saved[:n-1]
			}
		case 'P', 'N':
			b.end(f, t.code == 'N')
		case 'S':
			b.addStack(stackOf(t.text), f)
		default:
			f = f.with(t, base)
		}
	})
	return b.done(f)
}

// with is f as the code t changes it.
func (f format) with(t markupToken, base format) format {
	switch t.code {
	case 'H':
		f.height = scaledBy(t.text, f.height)
	case 'W':
		f.width = scaledBy(t.text, f.width)
	case 'T':
		f.tracking = scaledBy(t.text, f.tracking)
	case 'Q':
		if v, err := strconv.ParseFloat(strings.TrimSpace(t.text), 64); err == nil && math.Abs(v) < 90 {
			f.oblique = v
		}
	case 'A':
		if t.text != "" && t.text[0] >= '0' && t.text[0] <= '2' {
			f.valign = t.text[0] - '0'
		}
	case 'f', 'F':
		f.font = fontOf(t.text, t.code == 'f', base.font)
	case 'L', 'l', 'O', 'o', 'K', 'k':
		bit := uint8(strokeUnder)
		switch t.code {
		case 'O', 'o':
			bit = strokeOver
		case 'K', 'k':
			bit = strokeStrike
		}
		if t.code >= 'a' {
			f.strokes &^= bit
		} else {
			f.strokes |= bit
		}
	}
	return f
}

// scaledBy is a value as a code's argument sets it: v times the number
// before an "x", or the number (positive; what does not read as one
// keeps v).
func scaledBy(arg string, v float64) float64 {
	arg = strings.TrimSpace(arg)
	rel := relative(arg)
	n, err := strconv.ParseFloat(strings.TrimRight(arg, "xX"), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n == 0 {
		return v
	}
	if rel {
		return v * math.Abs(n)
	}
	return math.Abs(n)
}

// relative says whether a code's argument is a factor ("0.7x").
func relative(arg string) bool {
	return strings.HasSuffix(arg, "x") || strings.HasSuffix(arg, "X")
}

// fontOf is the font a \f (trueType: a family, "|b1" bold, "|i1"
// italic) or \F (an SHX file) code names, as TextStyle.Font names one
// (a family as its .ttf file, bold and italic in its name, so that
// TypefaceOf finds their faces); keep when it names none.
func fontOf(arg string, trueType bool, keep string) string {
	parts := strings.Split(arg, "|")
	name := strings.TrimSpace(parts[0])
	if name == "" {
		return keep
	}
	if !trueType {
		return name
	}
	for _, p := range parts[1:] {
		switch p {
		case "b1":
			name += " bold"
		case "i1":
			name += " italic"
		}
	}
	return name + ".ttf"
}

// scaleMarkup is markup with its absolute heights (\H without "x")
// times k, as the text they are part of is scaled.
func scaleMarkup(markup string, k float64) string {
	if markup == "" || k == 1 {
		return markup
	}
	var b strings.Builder
	scanMarkup(markup, func(t markupToken, raw string) {
		if t.code != 'H' || relative(strings.TrimSpace(t.text)) {
			b.WriteString(raw)
			return
		}
		h := scaledBy(t.text, 0)
		if h == 0 {
			b.WriteString(raw)
			return
		}
		b.WriteString(`\H` + strconv.FormatFloat(h*k, 'g', -1, 64) + ";")
	})
	return b.String()
}
