package dxf

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text in DXF files. A TEXT value is one line of the file, with codes of
// its own for characters the file's code page may lack and for symbols:
// dxfText writes them and decodeDXFText reads them, and the one undoes the
// other for every text of characters from the Basic Multilingual Plane
// without control characters.

// dxfText makes a string fit a DXF R12 text value: control characters
// become spaces, non-ASCII characters \U+XXXX escapes, and characters
// beyond the Basic Multilingual Plane (which \U+XXXX cannot name) "?".
// Text that would read as a code is escaped so that it reads as written:
// a backslash starting "\U+" or "\M+" is written \U+005C, and each "%"
// of a run of two or more is written "%%%" (so "%%d" stays "%%d" and does
// not become "°"). decodeDXFText reverses it.
func dxfText(s string) string { return escapeText(s, false) }

// dxfText2018 makes a string fit a text value of a 2018 file, which is
// UTF-8: as dxfText, but characters beyond ASCII are written as they are.
func dxfText2018(s string) string { return escapeText(s, true) }

// escapeText is dxfText, or with utf8 dxfText2018.
func escapeText(s string, utf8 bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		case r == '\\' && (strings.HasPrefix(s[i+1:], "U+") || strings.HasPrefix(s[i+1:], "M+")):
			b.WriteString(`\U+005C`)
		case r == '%' && (strings.HasPrefix(s[i+1:], "%") || i > 0 && s[i-1] == '%'):
			b.WriteString("%%%")
		case r < 0x80 || utf8:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, "\\U+%04X", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// decodeDXFText decodes the codes of a DXF TEXT value: \U+XXXX (a Unicode
// character), %%d (°), %%p (±), %%c (Ø), %%% (%), %%nnn (the character
// with that decimal code, but for 127, 128 and 129, which are °, ± and Ø
// as AutoCAD's fonts have them; see [legacySymbol]); the underline, overline and strike-through
// toggles %%u, %%o and %%k are dropped. Control characters become spaces,
// and invalid UTF-8 the replacement character. It is the inverse of
// dxfText for every text dxfText writes exactly (see Write).
func decodeDXFText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], `\U+`) && len(s) >= i+7:
			if n, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil && utf8.ValidRune(rune(n)) && isHex4(s[i+3:i+7]) {
				writeTextRune(&b, rune(n))
				i += 7
				continue
			}
		case strings.HasPrefix(s[i:], "%%") && len(s) >= i+3:
			if sym := percentSymbol(s[i+2]); sym != "" {
				b.WriteString(sym)
				i += 3
				continue
			}
			switch c := s[i+2]; c {
			case '%':
				b.WriteByte('%')
				i += 3
				continue
			case 'u', 'U', 'o', 'O', 'k', 'K':
				i += 3
				continue
			default:
				if len(s) >= i+5 && isDigits(s[i+2:i+5]) {
					n, _ := strconv.Atoi(s[i+2 : i+5])
					if sym := legacySymbol(n); sym != "" {
						b.WriteString(sym)
					} else {
						writeTextRune(&b, rune(n))
					}
					i += 5
					continue
				}
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		writeTextRune(&b, r)
		i += size
	}
	return b.String()
}

// percentSymbol is the symbol a TEXT's (or MTEXT's) %%c, %%d or %%p
// stands for, by its letter (either case), or "". The diameter is Ø
// (U+00D8), as ezdxf reads it and as every font has it (few have the
// diameter sign U+2300), and as the engine's own dimensions write it.
func percentSymbol(c byte) string {
	switch c {
	case 'c', 'C':
		return "Ø"
	case 'd', 'D':
		return "°"
	case 'p', 'P':
		return "±"
	}
	return ""
}

// legacySymbol is the symbol AutoCAD draws for %%127, %%128 and %%129:
// its SHX fonts keep the degree, plus-minus and diameter signs (what
// %%d, %%p and %%c draw) at those codes, which are DEL and two C1
// controls in Unicode, drawn as nothing or a box; "" for another code.
func legacySymbol(n int) string {
	switch n {
	case 127:
		return percentSymbol('d')
	case 128:
		return percentSymbol('p')
	case 129:
		return percentSymbol('c')
	}
	return ""
}

// decodeName is a name as a file writes it (a layer's), trimmed, with its
// \U+XXXX escapes (the characters its code page lacks) decoded.
func decodeName(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, `\U+`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], `\U+`) && len(s) >= i+7 && isHex4(s[i+3:i+7]) {
			if n, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil && utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
				i += 7
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func writeTextRune(b *strings.Builder, r rune) {
	if r < 0x20 || r == 0x7f {
		r = ' '
	}
	b.WriteRune(r)
}

func isHex4(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return len(s) == 4
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
