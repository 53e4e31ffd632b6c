package dxf

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// codepageFile is a small DXF file: a HEADER with the variables given
// ($ACADVER and $DWGCODEPAGE, left out when ""), and one TEXT whose value
// is text, with lines ending in eol.
func codepageFile(acadver, codepage string, text []byte, eol string) []byte {
	var b bytes.Buffer
	pair := func(code int, value string) {
		b.WriteString(strconv.Itoa(code) + eol + value + eol)
	}
	pair(0, "SECTION")
	pair(2, "HEADER")
	if acadver != "" {
		pair(9, "$ACADVER")
		pair(1, acadver)
	}
	if codepage != "" {
		pair(9, "$DWGCODEPAGE")
		pair(3, codepage)
	}
	pair(9, "$INSUNITS")
	pair(70, "4")
	pair(0, "ENDSEC")
	pair(0, "SECTION")
	pair(2, "ENTITIES")
	pair(0, "TEXT")
	pair(8, "0")
	b.WriteString("1" + eol)
	b.Write(text)
	b.WriteString(eol)
	pair(0, "ENDSEC")
	pair(0, "EOF")
	return b.Bytes()
}

// TestDecodeFileCodepages reads a TEXT written in each family of code
// pages: the whole file must come back as the same file with the text in
// Unicode.
func TestDecodeFileCodepages(t *testing.T) {
	tests := []struct {
		codepage string
		bytes    string
		want     string
	}{
		// Windows, single byte.
		{"ANSI_1252", "\x80 caf\xe9", "€ café"},
		{"ANSI_1251", "\xc0\xff \xcf\xf0\xe8\xe2\xe5\xf2", "Ая Привет"},
		{"ANSI_1250", "\x8a\xb9", "Šą"},
		{"ANSI_1253", "\xc1\xf9", "Αω"},
		{"ANSI_1254", "\xd0\xfd", "Ğı"},
		{"ANSI_1255", "\xe0\xfa", "את"},
		{"ANSI_1256", "\xc7\xe1", "ال"},
		{"ANSI_1257", "\xc0\xe8", "Ąč"},
		{"ANSI_1258", "\xc3\xd2", "Ă\u0309"},
		{"ANSI_874", "\xa1 \xe4\xb7\xc2", "ก ไทย"},
		// Windows, multibyte.
		{"ANSI_932", "\x93\xfa\x96\x7b", "日本"},
		{"ANSI_936", "\xd6\xd0\xce\xc4", "中文"},
		{"ANSI_949", "\xc7\xd1\xb1\xdb", "한글"},
		{"ANSI_949", "\x8c\x63", "똠"}, // beyond EUC-KR: the UHC of code page 949, its trail byte ASCII
		{"ANSI_950", "\xa4\xa4 \xbb\x4f\xc6\x57", "中 臺灣"},
		// DOS.
		{"DOS437", "\x81\xb0", "ü░"},
		{"dos850", "\xd5\x9d", "ıØ"},
		{"DOS852", "\xa5\x9f", "ąč"},
		{"DOS855", "\xa0\xb7", "аи"},
		{"DOS860", "\x84\x86", "ãÁ"},
		{"DOS863", "\x84\x8d", "Â‗"},
		{"DOS865", "\x9b\xaf", "ø¤"},
		{"DOS866", "\x80\xef", "Ая"},
		{"DOS932", "\x93\xfa", "日"},
		// Macintosh and Unix.
		{"MAC-ROMAN", "\x8e\xdb", "é€"},
		{"MACINTOSH", "\x8e", "é"},
		{"ISO8859-1", "\xe9", "é"},
		{"ISO8859-2", "\xb1", "ą"},
		{"ISO8859-5", "\xb0", "А"},
		{"ISO8859-7", "\xc1", "Α"},
		{"ISO8859-9", "\xd0", "Ğ"},
		{"ISO8859-15", "\xa4", "€"},
		// UTF-8 named in an old file.
		{"UTF-8", "Привет", "Привет"},
		{"UTF8", "日本", "日本"},
	}
	for _, tt := range tests {
		t.Run(tt.codepage, func(t *testing.T) {
			raw := codepageFile("AC1015", tt.codepage, []byte(tt.bytes), "\r\n")
			want := string(codepageFile("AC1015", tt.codepage, []byte(tt.want), "\r\n"))
			got, enc := decodeFile(raw)
			if got != want {
				t.Errorf("decodeFile(%q) = %q, want %q", tt.bytes, got, want)
			}
			cp, _ := lookupCodepage(tt.codepage)
			if enc.codepage != cp.name || enc.warning != "" {
				t.Errorf("decodeFile(%q) read as %q, warning %q; want %q, no warning", tt.bytes, enc.codepage, enc.warning, cp.name)
			}
		})
	}
}

// TestDecodeFileRules walks the rules that choose the encoding.
func TestDecodeFileRules(t *testing.T) {
	const (
		cyrillic1251 = "\xcf\xf0\xe8\xe2\xe5\xf2" // Привет in ANSI_1251
		latin1252    = "Gr\xfc\xdfe"              // Grüße in ANSI_1252
	)
	entities := func(eol, text string) string {
		return strings.ReplaceAll("0|SECTION|2|ENTITIES|0|TEXT|1|"+text+"|0|ENDSEC|0|EOF|", "|", eol)
	}
	tests := []struct {
		name        string
		raw         string
		want        string // the text; "" for raw read as UTF-8
		wantCP      string
		wantWarning string
	}{{
		name:   "AC1021 is UTF-8 whatever $DWGCODEPAGE says",
		raw:    string(codepageFile("AC1021", "ANSI_1251", []byte("Привет"), "\n")),
		wantCP: "UTF-8",
	}, {
		name:   "AC1032 with ANSI_949 is UTF-8",
		raw:    string(codepageFile("AC1032", "ANSI_949", []byte("주석 배치1"), "\r\n")),
		wantCP: "UTF-8",
	}, {
		name:   "AC1024 bytes that are not UTF-8 read as U+FFFD",
		raw:    string(codepageFile("AC1024", "ANSI_1251", []byte(cyrillic1251), "\n")),
		want:   string(codepageFile("AC1024", "ANSI_1251", []byte("\uFFFD"), "\n")),
		wantCP: "UTF-8",
	}, {
		name:   "AC1018, the last release with code pages",
		raw:    string(codepageFile("AC1018", "ANSI_1251", []byte(cyrillic1251), "\n")),
		want:   string(codepageFile("AC1018", "ANSI_1251", []byte("Привет"), "\n")),
		wantCP: "ANSI_1251",
	}, {
		name:   "AC2.10 is an old release, not one after AC1021",
		raw:    string(codepageFile("AC2.10", "ANSI_1251", []byte(cyrillic1251), "\n")),
		want:   string(codepageFile("AC2.10", "ANSI_1251", []byte("Привет"), "\n")),
		wantCP: "ANSI_1251",
	}, {
		name:   "R12 without $DWGCODEPAGE is ANSI_1252",
		raw:    string(codepageFile("AC1009", "", []byte(latin1252), "\n")),
		want:   string(codepageFile("AC1009", "", []byte("Grüße"), "\n")),
		wantCP: "ANSI_1252",
	}, {
		name:   "without $DWGCODEPAGE, UTF-8 is read as UTF-8",
		raw:    string(codepageFile("AC1009", "", []byte("Grüße"), "\n")),
		wantCP: "UTF-8",
	}, {
		name:   "without HEADER, ANSI_1252",
		raw:    entities("\n", latin1252),
		want:   entities("\n", "Grüße"),
		wantCP: "ANSI_1252",
	}, {
		name:   "without HEADER, UTF-8",
		raw:    entities("\r\n", "Grüße"),
		wantCP: "UTF-8",
	}, {
		name:   "without HEADER, ASCII only",
		raw:    entities("\r\n", "plain"),
		wantCP: "ANSI_1252",
	}, {
		name:   "a byte order mark is UTF-8, whatever the HEADER says",
		raw:    "\xEF\xBB\xBF" + string(codepageFile("AC1015", "ANSI_1251", []byte("Привет"), "\r\n")),
		want:   string(codepageFile("AC1015", "ANSI_1251", []byte("Привет"), "\r\n")),
		wantCP: "UTF-8",
	}, {
		name:   "CRLF",
		raw:    string(codepageFile("AC1015", "ANSI_1251", []byte(cyrillic1251), "\r\n")),
		want:   string(codepageFile("AC1015", "ANSI_1251", []byte("Привет"), "\r\n")),
		wantCP: "ANSI_1251",
	}, {
		name:   "CR",
		raw:    string(codepageFile("AC1015", "ANSI_1251", []byte(cyrillic1251), "\r")),
		want:   string(codepageFile("AC1015", "ANSI_1251", []byte("Привет"), "\r")),
		wantCP: "ANSI_1251",
	}, {
		name:   "codes and values with spaces around them",
		raw:    "  0\r\nSECTION\r\n  2\r\nHEADER \r\n  9\r\n$ACADVER\r\n  1\r\n AC1015\t\r\n  9\r\n$DWGCODEPAGE\r\n     3\r\n ansi_1251  \r\n  0\r\nENDSEC\r\n  1\r\n" + cyrillic1251 + "\r\n",
		want:   "  0\r\nSECTION\r\n  2\r\nHEADER \r\n  9\r\n$ACADVER\r\n  1\r\n AC1015\t\r\n  9\r\n$DWGCODEPAGE\r\n     3\r\n ansi_1251  \r\n  0\r\nENDSEC\r\n  1\r\nПривет\r\n",
		wantCP: "ANSI_1251",
	}, {
		name:   "a value with another group code",
		raw:    "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n9\n$DWGCODEPAGE\n1\nANSI_1251\n0\nENDSEC\n1\n" + cyrillic1251 + "\n",
		want:   "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n9\n$DWGCODEPAGE\n1\nANSI_1251\n0\nENDSEC\n1\nПривет\n",
		wantCP: "ANSI_1251",
	}, {
		name:   "a variable without a value",
		raw:    "0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n9\n$ACADVER\n1\nAC1021\n0\nENDSEC\n1\nПривет\n",
		wantCP: "UTF-8",
	}, {
		name:   "999 comments before the HEADER",
		raw:    "999\ncomment\n999\n\n0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\n" + cyrillic1251 + "\n",
		want:   "999\ncomment\n999\n\n0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\nПривет\n",
		wantCP: "ANSI_1251",
	}, {
		name:   "a HEADER cut after $DWGCODEPAGE",
		raw:    "0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n1\n" + cyrillic1251,
		want:   "0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n1\nПривет",
		wantCP: "ANSI_1251",
	}, {
		name:   "a HEADER cut before the value of $DWGCODEPAGE",
		raw:    "0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\n",
		wantCP: "ANSI_1252",
	}, {
		name:   "a HEADER with a line that is not a group code",
		raw:    "0\nSECTION\n2\nHEADER\nxx\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\n" + latin1252 + "\n",
		want:   "0\nSECTION\n2\nHEADER\nxx\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\nGrüße\n",
		wantCP: "ANSI_1252",
	}, {
		name:   "$DWGCODEPAGE after the HEADER's ENDSEC does not count",
		raw:    "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n0\nENDSEC\n0\nSECTION\n2\nBLOCKS\n9\n$DWGCODEPAGE\n3\nANSI_1251\n1\n" + latin1252 + "\n",
		want:   "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n0\nENDSEC\n0\nSECTION\n2\nBLOCKS\n9\n$DWGCODEPAGE\n3\nANSI_1251\n1\nGrüße\n",
		wantCP: "ANSI_1252",
	}, {
		name:   "a HEADER that is not the first section does not count",
		raw:    "0\nSECTION\n2\nCLASSES\n0\nENDSEC\n0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\n" + latin1252 + "\n",
		want:   "0\nSECTION\n2\nCLASSES\n0\nENDSEC\n0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n1\nGrüße\n",
		wantCP: "ANSI_1252",
	}, {
		name:        "an unknown code page is ANSI_1252, with a warning",
		raw:         string(codepageFile("AC1015", "FOO", []byte(latin1252), "\n")),
		want:        string(codepageFile("AC1015", "FOO", []byte("Grüße"), "\n")),
		wantCP:      "ANSI_1252",
		wantWarning: `unknown $DWGCODEPAGE "FOO": read as ANSI_1252`,
	}, {
		name:        "an unknown code page with UTF-8 is UTF-8, with a warning",
		raw:         string(codepageFile("AC1015", "DOS857", []byte("Grüße"), "\n")),
		wantCP:      "UTF-8",
		wantWarning: `unknown $DWGCODEPAGE "DOS857": read as UTF-8`,
	}, {
		name:   "an unknown code page in an AC1021 file does not matter",
		raw:    string(codepageFile("AC1021", "FOO", []byte("Grüße"), "\n")),
		wantCP: "UTF-8",
	}, {
		name:   "ASCII in ANSI_932 stays ASCII",
		raw:    string(codepageFile("AC1015", "ANSI_932", []byte(`C:\dwg ~ \U+0410`), "\n")),
		wantCP: "ANSI_932",
	}, {
		name:   "ASCII is read as ANSI_1252",
		raw:    string(codepageFile("AC1015", "ASCII", []byte(latin1252), "\n")),
		want:   string(codepageFile("AC1015", "ASCII", []byte("Grüße"), "\n")),
		wantCP: "ANSI_1252",
	}, {
		name:   "empty",
		raw:    "",
		wantCP: "ANSI_1252",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.raw
			}
			got, enc := decodeFile([]byte(tt.raw))
			if got != want {
				t.Errorf("decodeFile(%q) = %q, want %q", tt.raw, got, want)
			}
			if enc.codepage != tt.wantCP || enc.warning != tt.wantWarning {
				t.Errorf("decodeFile(%q) read as %q, warning %q; want %q, warning %q", tt.raw, enc.codepage, enc.warning, tt.wantCP, tt.wantWarning)
			}
		})
	}
}

// TestDecodeFileReportsTheHeader checks the variables the import report
// can quote.
func TestDecodeFileReportsTheHeader(t *testing.T) {
	_, enc := decodeFile(codepageFile("AC1012", "ansi_1252", nil, "\r\n"))
	if enc.acadver != "AC1012" || enc.dwgcodepage != "ansi_1252" || enc.codepage != "ANSI_1252" {
		t.Errorf("decodeFile: $ACADVER %q, $DWGCODEPAGE %q, read as %q; want AC1012, ansi_1252, ANSI_1252", enc.acadver, enc.dwgcodepage, enc.codepage)
	}
	long := "X\xff" + strings.Repeat("Y", 100)
	_, enc = decodeFile(codepageFile("AC1015", long, nil, "\n"))
	if !utf8.ValidString(enc.warning) || len(enc.warning) > 100 {
		t.Errorf("decodeFile with $DWGCODEPAGE %q: warning %q, want it short and valid UTF-8", long, enc.warning)
	}
}

func TestLookupCodepage(t *testing.T) {
	tests := []struct {
		name string
		want string // "" for unknown
	}{
		{"ANSI_1251", "ANSI_1251"},
		{"ansi_1251", "ANSI_1251"},
		{"ANSI 1251", "ANSI_1251"},
		{"1251", "ANSI_1251"},
		{"CP1251", "ANSI_1251"},
		{"WINDOWS-1251", "ANSI_1251"},
		{"ANSI_874", "ANSI_874"},
		{"ANSI_932", "ANSI_932"},
		{"DOS932", "ANSI_932"},
		{"dos932", "ANSI_932"},
		{"SHIFT_JIS", "ANSI_932"},
		{"ANSI_936", "ANSI_936"},
		{"GB2312", "ANSI_936"},
		{"ANSI_949", "ANSI_949"},
		{"KSC5601", "ANSI_949"},
		{"ANSI_950", "ANSI_950"},
		{"BIG5", "ANSI_950"},
		{"DOS437", "DOS437"},
		{"dos850", "DOS850"},
		{"DOS866", "DOS866"},
		{"CP866", "DOS866"},
		{"MAC-ROMAN", "MAC-ROMAN"},
		{"MACINTOSH", "MAC-ROMAN"},
		{"iso8859_1", "ISO8859-1"},
		{"ISO-8859-15", "ISO8859-15"},
		{"ISO8859-11", "ANSI_874"},
		{"UTF-8", "UTF-8"},
		{"utf8", "UTF-8"},
		{"ASCII", "ANSI_1252"},
		{"", ""},
		{"FOO", ""},
		{"DOS857", ""},
		{"DOS869", ""},
		{"JOHAB", ""},
		{"ANSI_1361", ""},
		{"ANSI_1200", ""},
	}
	for _, tt := range tests {
		cp, ok := lookupCodepage(tt.name)
		if ok != (tt.want != "") || cp.name != tt.want {
			t.Errorf("lookupCodepage(%q) = %q, %v; want %q", tt.name, cp.name, ok, tt.want)
		}
	}
	for _, cp := range dxfCodepages {
		if got, ok := lookupCodepage(cp.name); !ok || got.name != cp.name {
			t.Errorf("lookupCodepage(%q) = %q, %v; want itself", cp.name, got.name, ok)
		}
		for _, alias := range cp.aliases {
			if got, ok := lookupCodepage(alias); !ok || got.name != cp.name {
				t.Errorf("lookupCodepage(%q) = %q, %v; want %q", alias, got.name, ok, cp.name)
			}
		}
	}
}

// TestCodepagesKeepASCIIAndLines checks what the rest of the reader
// relies on in every code page: ASCII bytes read as themselves (so an
// ASCII file may skip the decoder), and no byte, valid or not, takes a
// line break with it (so line numbers stay those of the file).
func TestCodepagesKeepASCIIAndLines(t *testing.T) {
	ascii := make([]byte, 0x80)
	for i := range ascii {
		ascii[i] = byte(i)
	}
	for _, cp := range dxfCodepages {
		if cp.enc == nil {
			t.Fatalf("code page %s has no encoding", cp.name)
		}
		raw := codepageFile("AC1015", cp.name, ascii, "\n")
		if got, _ := decodeFile(raw); got != string(raw) {
			t.Errorf("%s: ASCII read as %q", cp.name, got)
		}
		if got, err := cp.enc.NewDecoder().Bytes(ascii); err != nil || string(got) != string(ascii) {
			t.Errorf("%s decoder: ASCII read as %q, %v", cp.name, got, err)
		}
		for b := 0x80; b <= 0xff; b++ {
			for _, eol := range []string{"\n", "\r\n", "\r"} {
				text := []byte{byte(b)}
				raw := codepageFile("AC1015", cp.name, text, eol)
				got, _ := decodeFile(raw)
				if !utf8.ValidString(got) || strings.Count(got, "\n") != bytes.Count(raw, []byte("\n")) || strings.Count(got, "\r") != bytes.Count(raw, []byte("\r")) {
					t.Errorf("%s: %q in a TEXT read as %q", cp.name, text, got)
				}
			}
		}
	}
}

// TestDecodeFileASCIIIsACopy checks that an ASCII file costs a copy of
// its bytes, not a decoder (whose output grows and is copied again).
func TestDecodeFileASCIIIsACopy(t *testing.T) {
	raw := asciiDXF(4 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	text, _ := decodeFile(raw)
	runtime.ReadMemStats(&after)
	if len(text) != len(raw) {
		t.Fatalf("decodeFile: %d bytes, want %d", len(text), len(raw))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(raw))+64<<10 {
		t.Errorf("decodeFile of %d bytes of ASCII allocated %d bytes, want about one copy", len(raw), n)
	}
}

// asciiDXF is an ASCII DXF file of about size bytes, in ANSI_1251: LINEs
// and TEXTs in the ENTITIES section.
func asciiDXF(size int) []byte {
	var b bytes.Buffer
	b.WriteString("  0\r\nSECTION\r\n  2\r\nHEADER\r\n  9\r\n$ACADVER\r\n  1\r\nAC1015\r\n  9\r\n$DWGCODEPAGE\r\n  3\r\nANSI_1251\r\n  0\r\nENDSEC\r\n  0\r\nSECTION\r\n  2\r\nENTITIES\r\n")
	for i := 0; b.Len() < size; i++ {
		n := strconv.Itoa(i)
		b.WriteString("  0\r\nLINE\r\n  8\r\n0\r\n 10\r\n" + n + ".5\r\n 20\r\n0.0\r\n 11\r\n" + n + ".25\r\n 21\r\n10.0\r\n")
		b.WriteString("  0\r\nTEXT\r\n  8\r\n0\r\n 10\r\n" + n + "\r\n 20\r\n0\r\n 40\r\n2.5\r\n  1\r\nText " + n + " %%c10\r\n")
	}
	b.WriteString("  0\r\nENDSEC\r\n  0\r\nEOF\r\n")
	return b.Bytes()
}

func BenchmarkDecodeFileASCII(b *testing.B) {
	raw := asciiDXF(10 << 20)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		decodeFile(raw)
	}
}

// BenchmarkDecodeFileANSI1251 is the ASCII file with a Cyrillic TEXT at
// the end, which takes the decoder, for comparison.
func BenchmarkDecodeFileANSI1251(b *testing.B) {
	raw := append(asciiDXF(10<<20), "  0\r\nTEXT\r\n  1\r\n\xcf\xf0\xe8\xe2\xe5\xf2\r\n"...)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		decodeFile(raw)
	}
}

func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(""))
	f.Add(codepageFile("AC1015", "ANSI_1251", []byte("\xcf\xf0\xe8\xe2\xe5\xf2"), "\r\n"))
	f.Add(codepageFile("AC1015", "ANSI_932", []byte("\x93\xfa\x96"), "\n"))
	f.Add(codepageFile("AC1015", "ANSI_949", []byte("\xc7\xd1\x8c"), "\r"))
	f.Add(codepageFile("AC1015", "ANSI_936", []byte("\xd6\xd0\xce"), "\n"))
	f.Add(codepageFile("AC1015", "ANSI_950", []byte("\xa4\xa4\xbb"), "\n"))
	f.Add(codepageFile("AC1032", "ANSI_949", []byte("한글\xff"), "\r\n"))
	f.Add(codepageFile("AC1009", "", []byte("Gr\xfc\xdfe"), "\n"))
	f.Add(codepageFile("AC1015", "FOO", []byte("plain"), "\n"))
	f.Add([]byte("\xEF\xBB\xBF0\nSECTION\n2\nHEADER\n9\n$DWGCODEPAGE\n3\nDOS866\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, enc := decodeFile(raw)
		if !utf8.ValidString(text) {
			t.Fatalf("decodeFile(%q) = %q, not valid UTF-8", raw, text)
		}
		if isASCIIBytewise(raw) && text != string(raw) {
			t.Fatalf("decodeFile(%q) = %q, want the ASCII unchanged", raw, text)
		}
		body := bytes.TrimPrefix(raw, utf8BOM)
		if strings.Count(text, "\n") != bytes.Count(body, []byte("\n")) || strings.Count(text, "\r") != bytes.Count(body, []byte("\r")) {
			t.Fatalf("decodeFile(%q) = %q: the line breaks moved", raw, text)
		}
		if cp, ok := lookupCodepage(enc.codepage); !ok || cp.name != enc.codepage {
			t.Fatalf("decodeFile(%q) read as %q, not a canonical code page name", raw, enc.codepage)
		}
		for _, s := range []string{enc.acadver, enc.dwgcodepage, enc.warning} {
			if !utf8.ValidString(s) {
				t.Fatalf("decodeFile(%q): %q is not valid UTF-8", raw, s)
			}
		}
	})
}

// isASCIIBytewise is isASCII the slow way.
func isASCIIBytewise(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// codepageCorpus is the directory of the real-world DXF corpus. Without
// it the test is skipped, unless it runs in CI, where it fails.
func codepageCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "dxfcorpus", "files")
	if _, err := os.Stat(dir); err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("the DXF corpus is missing under CI: %v", err)
		}
		t.Skipf("no DXF corpus: %v", err)
	}
	return dir
}

// textValues are the values of group codes 1 and 3 of the TEXT and MTEXT
// entities of a decoded file.
func textValues(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var values []string
	entity := ""
	for i := 0; i+1 < len(lines); i += 2 {
		code, value := strings.TrimSpace(lines[i]), lines[i+1]
		switch {
		case code == "0":
			entity = strings.TrimSpace(value)
		case (code == "1" || code == "3") && (entity == "TEXT" || entity == "MTEXT"):
			values = append(values, value)
		}
	}
	return values
}

// TestDecodeFileCorpus reads the files of the corpus that are not plain
// ASCII or that name a code page, and checks their text as ezdxf reads it.
func TestDecodeFileCorpus(t *testing.T) {
	dir := codepageCorpus(t)
	isHangul := func(r rune) bool { return unicode.Is(unicode.Hangul, r) }
	tests := []struct {
		file     string // a part of the file name
		codepage string
		contains []string // in the text
		texts    []string // in the values of TEXT and MTEXT
		hangul   bool     // the text has Hangul
	}{
		// AutoCAD 2018 files that say ANSI_949: UTF-8, with Korean style
		// and layout names ("주석", "배치1"); their TEXTs are ASCII.
		{file: "__tc0__", codepage: "UTF-8", contains: []string{"주석", "배치1"}, hangul: true},
		{file: "__tc1__", codepage: "UTF-8", contains: []string{"주석", "배치1", "도형복제"}, hangul: true},
		// AutoCAD 2000 in ANSI_1251; every byte of it is ASCII.
		{file: "PolyLine2D", codepage: "ANSI_1251"},
		{file: "zcad-teapot_R2000", codepage: "ANSI_1251"},
		// The only files in a legacy code page with bytes beyond ASCII.
		{file: "test-data__example_2000", codepage: "ANSI_1252", texts: []string{"108°"}},
		{file: "test-data__example_r13", codepage: "ANSI_1252", texts: []string{"108°"}},
		{file: "test-data__example_r14", codepage: "ANSI_1252", texts: []string{"108°"}},
		{file: "ASCII_R12", codepage: "ANSI_1252", texts: []string{`ABCÄÜÖ\U+03B1\U+03B2\U+03B3`}, contains: []string{`\U+039B\U+0391\U+0393\U+0395\U+03A1ÄÜÖ`}},
		{file: "readwrite__demo", codepage: "ANSI_1252", contains: []string{"GESCHIRRSPÜLMASCHINE", "SCHRANKTÜR"}},
		// Other code pages named by old files.
		{file: "small_r13", codepage: "ANSI_932"},
		{file: "duplicate_handles", codepage: "DOS850"},
		{file: "dxf-parser__polylines", codepage: "MAC-ROMAN"},
		{file: "2000__entities-3d", codepage: "ANSI_1250"},
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var found []string
			for _, n := range names {
				if strings.Contains(filepath.Base(n), tt.file) {
					found = append(found, n)
				}
			}
			if len(found) != 1 {
				t.Fatalf("files named *%s* in %s: %q, want one", tt.file, dir, found)
			}
			name := found[0]
			raw, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			text, enc := decodeFile(raw)
			if enc.codepage != tt.codepage || enc.warning != "" {
				t.Errorf("read as %q, warning %q; want %q", enc.codepage, enc.warning, tt.codepage)
			}
			for _, s := range tt.contains {
				if !strings.Contains(text, s) {
					t.Errorf("the text does not contain %q", s)
				}
			}
			if tt.hangul && strings.IndexFunc(text, isHangul) < 0 {
				t.Errorf("the text has no Hangul")
			}
			values := textValues(text)
			for _, want := range tt.texts {
				found := false
				for _, v := range values {
					found = found || strings.Contains(v, want)
				}
				if !found {
					t.Errorf("no TEXT or MTEXT contains %q", want)
				}
			}
			for _, v := range values {
				if strings.ContainsRune(v, utf8.RuneError) {
					t.Errorf("TEXT or MTEXT value %q has U+FFFD", v)
				}
			}
		})
	}
	// Every file of the corpus is well formed in its encoding.
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text, enc := decodeFile(raw)
		if strings.ContainsRune(text, utf8.RuneError) || enc.warning != "" {
			t.Errorf("%s, read as %s: U+FFFD in the text or a warning (%q)", filepath.Base(name), enc.codepage, enc.warning)
		}
	}
}
