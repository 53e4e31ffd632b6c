package drawing

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Markup reads as its plain text: codes and braces left out, escapes
// read, a stack as "top/bottom"; plain text as markup reads back as
// itself.
func TestMarkupText(t *testing.T) {
	for in, want := range map[string]string{
		`{\H1.4x;\fArial|b1;Head}\Pa\~b`:   "Head\na b",
		`\S1/2; \S1#2; \S^1; \S\/x;`:       "1/2 1/2 /1 /x",
		`a\\b\{c\}`:                        `a\b{c}`,
		`\Lunder\l \Oover\o \Kstrike\k`:    "under over strike",
		`one\Ntwo`:                         "one" + ColumnBreak + "two",
		`\pxqc;\C1;\c255;\A1;\Q15;\W2;x\z`: `x\z`,
		`\H2`:                              "",
	} {
		if got := MarkupText(in); got != want {
			t.Errorf("MarkupText(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"plain", "a\\b{c}\nd" + ColumnBreak + "e"} {
		if got := MarkupText(PlainMarkup(s)); got != s {
			t.Errorf("MarkupText(PlainMarkup(%q)) = %q", s, got)
		}
	}
}

// Codes set the formats of the runs after them; braces keep them to
// what they hold.
func TestParseMarkupFormats(t *testing.T) {
	base := format{height: 2, width: 1, tracking: 1, font: "txt"}
	paras := parseMarkup(`a{\H2x;\W0.5;\Q15;\T1.5;\fTimes New Roman|b1|i0;\L\A1;b}\H3;c\Fromans|c0;d`, base)
	if len(paras) != 1 {
		t.Fatalf("parseMarkup: %d paragraphs, want 1", len(paras))
	}
	b := format{height: 4, width: 0.5, oblique: 15, tracking: 1.5, font: "Times New Roman bold.ttf", strokes: strokeUnder, valign: 1}
	c := base
	c.height = 3
	d := c
	d.font = "romans"
	want := []run{{text: "a", f: base}, {text: "b", f: b}, {text: "c", f: c}, {text: "d", f: d}}
	if got := paras[0].runs; !slices.Equal(got, want) {
		t.Errorf("runs = %+v, want %+v", got, want)
	}
	if f := TypefaceOf(b.font); f != TypefaceBold {
		t.Errorf("TypefaceOf(%q) = %v, want the bold face", b.font, f)
	}
}

// A line is as tall as its tallest run: its baseline that far below its
// top, and the next line's top Spacing × 5/3 of it lower; an empty
// paragraph is as tall as the height in force where it ends.
func TestMTextMarkupLineHeights(t *testing.T) {
	g := MText{Markup: `small\P{\H2x;BIG} small\P{\H3x;\P}small`, P: geom.Pt(0, 0), Height: 1, Attach: 1, Spacing: 1}
	g.Text = MarkupText(g.Markup)
	var ys []float64
	for _, x := range g.Picture().Texts {
		if s := strings.TrimSpace(x.Text); s != "small" && s != "BIG" {
			continue
		}
		ys = append(ys, x.P.Y)
	}
	// Tops: 0, 5/3, 5/3+10/3 = 5 (the empty line 3 tall), 5+5 = 10.
	want := []float64{-1, -5.0/3 - 2, -5.0/3 - 2, -11}
	if len(ys) != len(want) {
		t.Fatalf("baselines %v, want %v", ys, want)
	}
	for i := range want {
		if math.Abs(ys[i]-want[i]) > 1e-9 {
			t.Errorf("baselines %v, want %v", ys, want)
			break
		}
	}
}

// Words wrap at Width across runs of different formats; runs without a
// space between them are one word.
func TestMTextMarkupWrapsAcrossRuns(t *testing.T) {
	for _, c := range []struct {
		markup string
		width  float64
		want   []string
	}{
		{`aaa {\H2x;bbb} ccc`, 8, []string{"aaa", "bbb", "ccc"}},
		{`aaa {\H2x;bbb} ccc`, 10, []string{"aaa bbb", "ccc"}},
		{`x{\H2x;yy}z www`, 6, []string{"xyyz", "www"}},
	} {
		g := MText{Markup: c.markup, Height: 1, Width: c.width, Attach: 1, Spacing: 1}
		var got []string
		for _, l := range g.lines(estimated) {
			got = append(got, l.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q at width %v: lines %q, want %q", c.markup, c.width, got, c.want)
		}
	}
}

// Stacks are drawn as ezdxf draws them: '/' its parts over each other
// with a bar between, '#' diagonally with a slanted bar, '^' over each
// other without a bar; a stacked line is 2.4 (diagonally 2) times its
// height tall.
func TestMTextMarkupStacks(t *testing.T) {
	for _, c := range []struct {
		markup string
		bar    func(geom.Segment) bool
		top    float64 // the top part's baseline above the bottom's
	}{
		{`\S1/2;`, func(s geom.Segment) bool { return s.A.Y == s.B.Y && geom.Eq(s.A.Y, -2.4+1.2) }, 1.4},
		{`\S1#2;`, func(s geom.Segment) bool { return s.A.X < s.B.X && s.A.Y < s.B.Y }, 1},
		{`\S1^2;`, nil, 1.4},
	} {
		g := MText{Markup: c.markup, Text: MarkupText(c.markup), Height: 1, Attach: 1, Spacing: 1}
		p := g.Picture()
		if len(p.Texts) != 2 || p.Texts[0].Text != "1" || p.Texts[1].Text != "2" {
			t.Fatalf("%q: texts %+v, want 1 and 2", c.markup, p.Texts)
		}
		if d := p.Texts[0].P.Y - p.Texts[1].P.Y; !geom.Eq(d, c.top) {
			t.Errorf("%q: the top part %v above the bottom one, want %v", c.markup, d, c.top)
		}
		switch {
		case c.bar == nil && len(p.Strokes) != 0:
			t.Errorf("%q: strokes %v, want none", c.markup, p.Strokes)
		case c.bar != nil && (len(p.Strokes) != 1 || !c.bar(p.Strokes[0].(geom.Segment))):
			t.Errorf("%q: strokes %v, want its bar", c.markup, p.Strokes)
		}
	}
}

// Under, over and strike lines run along their runs, a fifth of the
// height below the baseline, in the middle, and a fifth above the top.
func TestMTextMarkupStrokes(t *testing.T) {
	g := MText{Markup: `\Lu\l\Oo\o\Kk`, Height: 1, Attach: 1, Spacing: 1}
	g.Text = MarkupText(g.Markup)
	p := g.Picture()
	if len(p.Strokes) != 3 {
		t.Fatalf("strokes %v, want three", p.Strokes)
	}
	for i, dy := range []float64{-0.2, 1.2, 0.5} {
		s := p.Strokes[i].(geom.Segment)
		if want := p.Texts[i].P.Y + dy; !geom.Eq(s.A.Y, want) || !geom.Eq(s.B.Y, want) || !(s.B.X > s.A.X) || !geom.Eq(s.A.X, p.Texts[i].P.X) {
			t.Errorf("stroke %d = %v, want along %q at y = %v", i, s, p.Texts[i].Text, want)
		}
	}
}

// An MText without markup encodes as it always did; with markup, its
// encoding is that and the markup after it, and decodes back.
func TestMTextMarkupEncoding(t *testing.T) {
	plain := MText{Text: "a\nb", P: geom.Pt(1, 2), Height: 2, Width: 10, Attach: 1, Spacing: 1, Aligns: " r"}
	marked := plain
	marked.Markup = `{\H2x;a}\Pb`
	var w, wm encoder
	plain.encodeTo(&w)
	marked.encodeTo(&wm)
	if !bytes.HasPrefix(wm.b, w.b) || wm.b[len(w.b)] != mtextMarkup {
		t.Errorf("the encoding with markup does not begin with the one without")
	}
	if w.b[len(w.b)-1] == mtextMarkup || bytes.Contains(w.b, []byte(marked.Markup)) {
		t.Errorf("the encoding without markup has some")
	}
	for _, g := range []MText{plain, marked} {
		var e encoder
		g.encodeTo(&e)
		if back := decodeMText(&decoder{b: e.b}); back != g {
			t.Errorf("decoded %+v, want %+v", back, g)
		}
	}
}

// Scaled, its absolute heights scale with it (relative ones stay); a
// new text drops the markup.
func TestMTextMarkupTransformsAndEdits(t *testing.T) {
	g := MText{Markup: `\H2;a{\H1.5x;b}\\H3;`, Height: 1, Attach: 1, Spacing: 1}
	g.Text = MarkupText(g.Markup)
	scaled := g.Transformed(geom.ScaleAbout(geom.Vec{}, 2)).(MText)
	if want := `\H4;a{\H1.5x;b}\\H3;`; scaled.Markup != want {
		t.Errorf("scaled markup %q, want %q", scaled.Markup, want)
	}
	if same := g.WithText(g.Text); same.Markup != g.Markup {
		t.Errorf("WithText(its text) dropped the markup")
	}
	if other := g.WithText("new"); other.Markup != "" || other.Text != "new" {
		t.Errorf("WithText(new) = %+v, want the text without markup", other)
	}
}

// FuzzMTextMarkup feeds the markup reader arbitrary markup: reading it,
// scaling it and drawing the text it formats never panic, scaling
// changes no character, drawing gives finite positive heights, and any
// text (valid UTF-8, as every text the engine holds) written as markup
// reads back as itself.
func FuzzMTextMarkup(f *testing.F) {
	for _, s := range []string{
		`{\H1.4x;\fArial|b1;Head}\Pa\~b`, `\S1/2; \S1#2; \S^1; \S\/x;`, `a\\b\{c\}`,
		`\Lunder\l \Oover\o \Kstrike\k`, `one\Ntwo`, `\pxqc;\C1;\c255;\A1;\Q15;\W2;\T3;x\z`,
		`\H2`, `\H1e308;\W1e308x;a b c`, `{{{\H0.5x;\S\;;`, "\xff\\S",
	} {
		f.Add(s, 10.0)
	}
	f.Fuzz(func(t *testing.T, markup string, width float64) {
		text := MarkupText(markup)
		if got := MarkupText(scaleMarkup(markup, 2.5)); got != text {
			t.Fatalf("scaleMarkup(%q) reads %q, want %q", markup, got, text)
		}
		if got := MarkupText(PlainMarkup(markup)); utf8.ValidString(markup) && got != markup {
			t.Fatalf("MarkupText(PlainMarkup(%q)) = %q", markup, got)
		}
		if len(markup) > 512 {
			return // drawing measures glyphs: keep the runs short
		}
		g := MText{Text: text, Markup: markup, Height: 2.5, Width: width, Attach: 1, Spacing: 1}
		for _, tx := range g.Picture().Texts {
			if !(tx.Height > 0) || !geom.IsFinite(tx.Height) {
				t.Fatalf("markup %q draws %q at height %v", markup, tx.Text, tx.Height)
			}
		}
	})
}

// A long line is wrapped in few measures: its words are counted by
// doubling and halving, not tried one at a time (a paragraph of 4,000
// words just too wide for its box measured 4,000 lines of up to 4,000
// words, seconds of work for a 24 KB text). The plain and the formatted
// text's characters are gathered in linear time too (see
// paragraphBuilder).
func TestMTextWrapMeasuresLogarithmically(t *testing.T) {
	words := strings.Repeat("word ", 4000)
	g := MText{Text: words, Height: 1, Attach: 1, Spacing: 1}
	_, _, whole, _, _ := g.box(estimated)
	g.Width = whole * 0.99
	calls := 0
	counting := func(s string, f format) (float64, float64) {
		calls++
		return estimated(s, f)
	}
	lines := g.lines(counting)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	if n := len(strings.Fields(lines[0].String())); n < 3900 || n >= 4000 {
		t.Errorf("the first line holds %d words, want most of the 4000", n)
	}
	if calls > 100 {
		t.Errorf("wrapping measured %d times, want at most 100", calls)
	}
}
