package contractgen

import (
	"regexp"
	"strings"
	"testing"
)

// TestNamesPattern: the pattern of a domain of names matches each name in
// any case, and nothing else — not a prefix, an extension or a mix of two
// names.
func TestNamesPattern(t *testing.T) {
	for _, names := range [][]string{
		{"ByLayer", "ByBlock", "Continuous", "DASHED", "HIDDEN", "CENTER", "DOT", "DASHDOT", "PHANTOM", "BORDER", "DIVIDE", "DASHED2", "DASHEDX2", "HIDDEN2", "HIDDENX2", "DOT2", "DOTX2", "DASHDOT2", "DASHDOTX2"},
		{"ANSI31", "ANSI37", "DOTS", "NET", "SOLID"},
		{"a", "ab", "abc", "b"},
		{"one"},
	} {
		p := namesPattern(names)
		re := regexp.MustCompile(p)
		in := map[string]bool{}
		for _, n := range names {
			for _, v := range []string{n, strings.ToLower(n), strings.ToUpper(n)} {
				in[strings.ToLower(v)] = true
				if !re.MatchString(v) {
					t.Errorf("%s does not match %q", p, v)
				}
			}
		}
		for _, n := range names {
			for _, v := range []string{n[:len(n)-1], n + "x", n + "2", "x" + n, n + n, " " + n, n + "\n"} {
				if !in[strings.ToLower(v)] && re.MatchString(v) {
					t.Errorf("%s matches %q, which is not a name", p, v)
				}
			}
			for _, m := range names {
				if v := n[:len(n)/2] + m[len(m)/2:]; !in[strings.ToLower(v)] && re.MatchString(v) {
					t.Errorf("%s matches %q, which is not a name", p, v)
				}
			}
		}
	}
	if got, want := namesPattern([]string{"ByLayer", "ByBlock"}), `^(?:[Bb][Yy](?:[Ll][Aa][Yy][Ee][Rr]|[Bb][Ll][Oo][Cc][Kk]))$`; got != want {
		t.Errorf("namesPattern = %s, want %s", got, want)
	}
}
