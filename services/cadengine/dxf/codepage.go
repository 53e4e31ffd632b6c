package dxf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// The bytes of a DXF file and the text in them. Files of AutoCAD 2007
// (AC1021) and later are UTF-8; older ones are in the code page that the
// HEADER variable $DWGCODEPAGE names. [decodeFile] turns the bytes into
// text by ezdxf's rules; [dxfCodepages] lists the code pages it can read.

// fileEncoding is how [decodeFile] read a file, for the import report.
type fileEncoding struct {
	// codepage is what the text was read as, by its canonical DXF name
	// (a [dxfCodepage] name): "ANSI_1251", "ANSI_949", "UTF-8" ...
	codepage string
	// acadver and dwgcodepage are $ACADVER and $DWGCODEPAGE as the HEADER
	// writes them, trimmed and shortened for messages; "" when absent.
	acadver, dwgcodepage string
	// warning, unless "", says why the text may read wrong: $DWGCODEPAGE
	// names a code page the engine cannot read. It names the code page and
	// what the text was read as instead.
	warning string
}

// utf8BOM is the byte order mark some writers put before UTF-8 text.
var utf8BOM = []byte("\xEF\xBB\xBF")

// decodeFile turns the bytes of an ASCII DXF file into its text, read in
// the encoding the file is written in, and says which that was. The rules
// are ezdxf's (0.18, the oracle of the test corpus):
// ezdxf.lldxf.validator.dxf_info finds the variables,
// ezdxf.filemanagement.dxf_stream_info makes AC1021 and later UTF-8, and
// ezdxf.tools.codepage.toencoding maps $DWGCODEPAGE to an encoding with
// cp1252 as the default. In order:
//
//  1. A UTF-8 byte order mark: UTF-8, without the mark. (ezdxf.readfile
//     refuses such a file as not DXF.)
//  2. $ACADVER AC1021 (AutoCAD 2007) or later: UTF-8, whatever
//     $DWGCODEPAGE says. The version is compared as a number, so "AC2.10"
//     (AutoCAD 2.10) is an old file; ezdxf compares strings and would take
//     it for a new one.
//  3. Otherwise — AutoCAD 2004 (AC1018) and older, or no $ACADVER, as in
//     R10–R12 files and files without a HEADER — the code page
//     $DWGCODEPAGE names, looked up by [lookupCodepage].
//  4. No $DWGCODEPAGE, or one [lookupCodepage] does not know: ANSI_1252,
//     the default of AutoCAD and ezdxf — unless the file has bytes beyond
//     ASCII and they are all valid UTF-8; then UTF-8. (ezdxf reads
//     cp1252.) Writers other than AutoCAD write UTF-8 without naming a code
//     page, and text in a legacy code page is almost never valid UTF-8 by
//     chance. An unknown code page is named in the warning.
//
// $ACADVER and $DWGCODEPAGE are read from the bytes before any decoding:
// their names and values are ASCII, which every code page shares, and no
// byte of a multibyte character is CR or LF, so the lines are where they
// seem. Only the HEADER is scanned, and only when it is the first
// section; see [headerVars].
//
// Bytes that are not valid in the chosen encoding read as U+FFFD, so the
// text is always valid UTF-8, and line breaks stay where they are: line
// numbers in the text are those of the file. A file of ASCII bytes only
// is returned as it is, without a decoder; the cost is linear in the size
// of the file.
func decodeFile(raw []byte) (string, fileEncoding) {
	body, bom := bytes.CutPrefix(raw, utf8BOM)
	acadver, declared := headerVars(body)
	enc := fileEncoding{acadver: forMessage(acadver), dwgcodepage: forMessage(declared)}
	ascii := isASCII(body)

	cp, known := lookupCodepage(declared)
	switch {
	case bom || isUTF8Release(acadver):
		cp = utf8Codepage
	case known:
		// The code page the file names.
	default:
		cp = ansi1252
		if !ascii && utf8.Valid(body) {
			cp = utf8Codepage
		}
		if declared != "" {
			enc.warning = fmt.Sprintf("unknown $DWGCODEPAGE %q: read as %s", enc.dwgcodepage, cp.name)
		}
	}
	enc.codepage = cp.name

	switch {
	case ascii:
		return string(body), enc
	case cp.enc == unicode.UTF8:
		return strings.ToValidUTF8(string(body), "\uFFFD"), enc
	}
	text, err := cp.enc.NewDecoder().Bytes(body)
	if err != nil {
		// Cannot happen: the decoders of [dxfCodepages] write U+FFFD for
		// bytes they cannot map and never fail.
		return strings.ToValidUTF8(string(body), "\uFFFD"), enc
	}
	return string(text), enc
}

// forMessage makes a value of the file fit a message.
func forMessage(s string) string { return clip(strings.ToValidUTF8(s, "\uFFFD")) }

// isUTF8Release reports whether $ACADVER names AutoCAD 2007 (AC1021) or
// later, whose files are UTF-8.
func isUTF8Release(acadver string) bool {
	if len(acadver) != 6 || !strings.EqualFold(acadver[:2], "AC") {
		return false
	}
	n, err := strconv.Atoi(acadver[2:])
	return err == nil && n >= 1021
}

// isASCII reports whether every byte is below 0x80, eight at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// headerVars returns the values of $ACADVER and $DWGCODEPAGE in the
// HEADER section, trimmed; "" for one that is absent. Like ezdxf's
// dxf_info it reads the HEADER only when it is the first section (999
// comments may come before it), and stops at the HEADER's first group
// code 0 (its ENDSEC), once it has both values, at the end of the bytes,
// or at a line that is not a group code. A variable's value is the pair
// after its name (group code 9), whatever its group code (AutoCAD writes
// 1 for $ACADVER, 3 for $DWGCODEPAGE). Lines may end in LF, CRLF or CR,
// and codes and values may have spaces around them.
func headerVars(raw []byte) (acadver, codepage string) {
	lines := byteLines{rest: raw}
	code, value, ok := lines.pair()
	for ok && code == 999 {
		code, value, ok = lines.pair()
	}
	if !ok || code != 0 || string(value) != "SECTION" {
		return "", ""
	}
	if code, value, ok = lines.pair(); !ok || code != 2 || string(value) != "HEADER" {
		return "", ""
	}
	var variable []byte // the variable whose value comes next; nil when none
	for acadver == "" || codepage == "" {
		code, value, ok := lines.pair()
		switch {
		case !ok || code == 0:
			return acadver, codepage
		case code == 9:
			variable = value
		case string(variable) == "$ACADVER":
			acadver, variable = string(value), nil
		case string(variable) == "$DWGCODEPAGE":
			codepage, variable = string(value), nil
		default:
			variable = nil
		}
	}
	return acadver, codepage
}

// byteLines reads the lines of a file's bytes, ending in LF, CRLF or CR.
type byteLines struct{ rest []byte }

// line is the next line without its ending; false at the end.
func (l *byteLines) line() ([]byte, bool) {
	if len(l.rest) == 0 {
		return nil, false
	}
	i := bytes.IndexAny(l.rest, "\r\n")
	if i < 0 {
		line := l.rest
		l.rest = nil
		return line, true
	}
	line, end := l.rest[:i], i+1
	if l.rest[i] == '\r' && end < len(l.rest) && l.rest[end] == '\n' {
		end++
	}
	l.rest = l.rest[end:]
	return line, true
}

// pair is the next group code and its value, trimmed; false at the end
// or when the code line is not an integer.
func (l *byteLines) pair() (int, []byte, bool) {
	codeLine, ok := l.line()
	if !ok {
		return 0, nil, false
	}
	code, ok := groupCode(bytes.TrimSpace(codeLine))
	if !ok {
		return 0, nil, false
	}
	value, ok := l.line()
	return code, bytes.TrimSpace(value), ok
}

// groupCode parses a group code: an optional minus sign and up to six
// digits.
func groupCode(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// dxfCodepage is a code page a DXF file can be written in.
type dxfCodepage struct {
	// name is the canonical name: $DWGCODEPAGE as AutoCAD writes it.
	name string
	// enc reads the bytes; unicode.UTF8 for UTF-8.
	enc encoding.Encoding
	// aliases are other names files use for it.
	aliases []string
}

// ansi1252 is the default code page of DXF files: Windows Western Europe.
var ansi1252 = dxfCodepage{"ANSI_1252", charmap.Windows1252, []string{"ASCII", "US-ASCII"}}

// utf8Codepage is UTF-8, the encoding of AutoCAD 2007 and later files.
var utf8Codepage = dxfCodepage{"UTF-8", unicode.UTF8, []string{"ANSI_65001", "CP65001"}}

// dxfCodepages are the code pages the engine can read: those of the DXF
// reference's $DWGCODEPAGE list that golang.org/x/text has, and UTF-8.
// AutoCAD names it cannot read — DOS857 (Turkish), DOS861 (Icelandic),
// DOS864 (Arabic), DOS869 (Greek), JOHAB and ANSI_1361 (Korean Johab),
// ANSI_1200 (UTF-16) — are unknown to [lookupCodepage]. ASCII reads as
// its superset ANSI_1252, as in ezdxf, and the multibyte code pages as
// their Windows supersets: GBK for GB2312, the UHC of code page 949 for
// KSC5601, ISO8859-11 (TIS-620) as ANSI_874.
var dxfCodepages = []dxfCodepage{
	// Windows.
	{"ANSI_874", charmap.Windows874, []string{"TIS-620", "ISO8859-11"}}, // Thai
	{"ANSI_932", japanese.ShiftJIS, []string{"DOS932", "SHIFT_JIS", "SJIS", "MS932", "WINDOWS-31J"}},
	{"ANSI_936", simplifiedchinese.GBK, []string{"GB2312", "GBK"}},
	{"ANSI_949", korean.EUCKR, []string{"KSC5601", "EUC-KR", "UHC"}},
	{"ANSI_950", traditionalchinese.Big5, []string{"BIG5"}},
	{"ANSI_1250", charmap.Windows1250, nil}, // Central Europe
	{"ANSI_1251", charmap.Windows1251, nil}, // Cyrillic
	ansi1252,
	{"ANSI_1253", charmap.Windows1253, nil}, // Greek
	{"ANSI_1254", charmap.Windows1254, nil}, // Turkish
	{"ANSI_1255", charmap.Windows1255, nil}, // Hebrew
	{"ANSI_1256", charmap.Windows1256, nil}, // Arabic
	{"ANSI_1257", charmap.Windows1257, nil}, // Baltic
	{"ANSI_1258", charmap.Windows1258, nil}, // Vietnamese
	// DOS.
	{"DOS437", charmap.CodePage437, []string{"CP437", "IBM437", "437"}}, // USA
	{"DOS850", charmap.CodePage850, []string{"CP850", "IBM850", "850"}}, // Western Europe
	{"DOS852", charmap.CodePage852, []string{"CP852", "IBM852", "852"}}, // Eastern Europe
	{"DOS855", charmap.CodePage855, []string{"CP855", "IBM855", "855"}}, // Russian (IBM)
	{"DOS860", charmap.CodePage860, []string{"CP860", "IBM860", "860"}}, // Portuguese
	{"DOS863", charmap.CodePage863, []string{"CP863", "IBM863", "863"}}, // Canadian French
	{"DOS865", charmap.CodePage865, []string{"CP865", "IBM865", "865"}}, // Norwegian
	{"DOS866", charmap.CodePage866, []string{"CP866", "IBM866", "866"}}, // Russian
	// Macintosh and Unix.
	{"MAC-ROMAN", charmap.Macintosh, []string{"MACINTOSH", "MACROMAN"}},
	{"ISO8859-1", charmap.ISO8859_1, []string{"LATIN1"}},
	{"ISO8859-2", charmap.ISO8859_2, nil},
	{"ISO8859-3", charmap.ISO8859_3, nil},
	{"ISO8859-4", charmap.ISO8859_4, nil},
	{"ISO8859-5", charmap.ISO8859_5, nil},
	{"ISO8859-6", charmap.ISO8859_6, nil},
	{"ISO8859-7", charmap.ISO8859_7, nil},
	{"ISO8859-8", charmap.ISO8859_8, nil},
	{"ISO8859-9", charmap.ISO8859_9, nil},
	{"ISO8859-10", charmap.ISO8859_10, nil},
	{"ISO8859-13", charmap.ISO8859_13, nil},
	{"ISO8859-14", charmap.ISO8859_14, nil},
	{"ISO8859-15", charmap.ISO8859_15, nil},
	{"ISO8859-16", charmap.ISO8859_16, nil},
	utf8Codepage,
}

// lookupCodepage finds the code page a $DWGCODEPAGE value names. Case,
// spaces, "_", "-" and "." do not count ("ansi_1251", "ISO-8859-1",
// "Mac Roman"). A name that is none of [dxfCodepages]' names or aliases but
// ends in the number of a Windows code page is that code page ("1251",
// "CP1251", "WINDOWS-1251"), as in ezdxf's toencoding.
func lookupCodepage(name string) (dxfCodepage, bool) {
	key := codepageKey(name)
	if key == "" {
		return dxfCodepage{}, false
	}
	for _, cp := range dxfCodepages {
		if codepageKey(cp.name) == key {
			return cp, true
		}
		for _, alias := range cp.aliases {
			if codepageKey(alias) == key {
				return cp, true
			}
		}
	}
	for _, cp := range dxfCodepages {
		if number, ok := strings.CutPrefix(cp.name, "ANSI_"); ok && strings.HasSuffix(key, number) {
			return cp, true
		}
	}
	return dxfCodepage{}, false
}

// codepageKey is a code page name in upper case without separators.
func codepageKey(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '_' || r == '-' || r == '.':
			return -1
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, name)
}
