package dxf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// An ASCII DXF file is a sequence of pairs of lines: an integer group code
// and its value. This file reads them, one at a time, and names the line
// of anything that breaks the format.

// Error is a DXF file the engine cannot read: not ASCII DXF, a group
// code that is not an integer, a value that does not parse, a section
// without its end. It wraps ErrInvalid.
type Error struct {
	// Line is the 1-based line of the file where the problem is.
	Line int
	// Reason says what is wrong there.
	Reason string
}

// Error names the line and the reason.
func (e *Error) Error() string { return fmt.Sprintf("DXF line %d: %s", e.Line, e.Reason) }

func dxfErrorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Reason: fmt.Sprintf(format, args...)}
}

// dxfPair is one group code and its value; line is the line of the code
// (the value is on the next).
type dxfPair struct {
	code  int
	value string
	line  int
}

// word is the value as a keyword ("SECTION", "LINE").
func (p dxfPair) word() string { return strings.TrimSpace(p.value) }

func (p dxfPair) float() (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(p.value), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, dxfErrorf(p.line+1, "the value %q of group code %d is not a number", clip(p.value), p.code)
	case err != nil || !geom.IsFinite(f):
		return 0, dxfErrorf(p.line+1, "the value %q of group code %d is not a finite number", clip(p.value), p.code)
	}
	return f, nil
}

// int reads an integer value; some writers write integers as "1.0".
func (p dxfPair) int() (int64, error) {
	s := strings.TrimSpace(p.value)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, dxfErrorf(p.line+1, "the value %q of group code %d is not an integer", clip(p.value), p.code)
	}
	return int64(f), nil
}

// clip shortens a value quoted in an error message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// dxfScanner reads pairs one at a time from the file's text, with one
// pair of look-ahead; it never holds more than the pair at hand.
type dxfScanner struct {
	s    string
	pos  int
	line int // lines consumed
	// peeked is the pair peek read and next has not returned yet, when
	// hasPeeked (a value, not a pointer: a pointer would put every
	// pair the reader peeks at on the heap).
	peeked    dxfPair
	hasPeeked bool
	// repairs are the values the scanner mended (decimal commas), for
	// the import report.
	repairs []repair
}

// repair is a value the scanner mended, and where.
type repair struct {
	line    int
	message string
}

// next reads the next pair; io.EOF at the end of the text (trailing blank
// lines included).
func (sc *dxfScanner) next() (dxfPair, error) {
	if sc.hasPeeked {
		sc.hasPeeked = false
		return sc.peeked, nil
	}
	if sc.blankToEnd() {
		return dxfPair{}, io.EOF
	}
	codeLine := sc.line + 1
	raw := sc.readLine()
	code, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return dxfPair{}, dxfErrorf(codeLine, "the group code %q is not an integer", clip(raw))
	}
	if sc.pos >= len(sc.s) {
		return dxfPair{}, dxfErrorf(codeLine, "group code %d has no value (the file ends)", code)
	}
	value := sc.readLine()
	if floatCode(code) {
		if v, ok := decimalComma(value); ok {
			sc.repairs = append(sc.repairs, repair{codeLine + 1, fmt.Sprintf("the number %q written with a decimal comma: read as %s", clip(value), v)})
			value = v
		}
	}
	return dxfPair{code: code, value: value, line: codeLine}, nil
}

// floatCode says whether DXF's group code holds a real number.
func floatCode(code int) bool {
	return code >= 10 && code <= 59 || code >= 110 && code <= 149 || code >= 210 && code <= 239 ||
		code >= 460 && code <= 469 || code >= 1010 && code <= 1059
}

// decimalComma is a number written with a comma for its decimal point
// ("0,1"), as some writers in locales that use one do, with the point:
// ok only for digits, one comma and no point.
func decimalComma(v string) (string, bool) {
	t := strings.TrimSpace(v)
	i := strings.IndexByte(t, ',')
	if i < 0 || strings.IndexByte(t[i+1:], ',') >= 0 || strings.ContainsAny(t, ".eE") {
		return "", false
	}
	digits := func(s string) bool {
		for j := 0; j < len(s); j++ {
			if s[j] < '0' || s[j] > '9' {
				return false
			}
		}
		return s != ""
	}
	intPart := strings.TrimPrefix(strings.TrimPrefix(t[:i], "-"), "+")
	if !digits(intPart) || !digits(t[i+1:]) {
		return "", false
	}
	return t[:i] + "." + t[i+1:], true
}

// blankToEnd reports whether only white space is left. It looks no
// further than the first other byte, so the whole scan stays linear.
func (sc *dxfScanner) blankToEnd() bool {
	for i := sc.pos; i < len(sc.s); i++ {
		switch sc.s[i] {
		case ' ', '\t', '\r', '\n', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

// peek is the next pair without consuming it.
func (sc *dxfScanner) peek() (dxfPair, error) {
	if !sc.hasPeeked {
		p, err := sc.next()
		if err != nil {
			return p, err
		}
		sc.unread(p)
	}
	return sc.peeked, nil
}

// unread puts p back: next returns it again.
func (sc *dxfScanner) unread(p dxfPair) { sc.peeked, sc.hasPeeked = p, true }

// readLine consumes one line and returns it without its line ending.
func (sc *dxfScanner) readLine() string {
	rest := sc.s[sc.pos:]
	i := strings.IndexByte(rest, '\n')
	if i < 0 {
		i = len(rest)
		sc.pos = len(sc.s)
	} else {
		sc.pos += i + 1
	}
	sc.line++
	return strings.TrimSuffix(rest[:i], "\r")
}
