// Package tokens counts the tokens of text in OpenAI's o200k_base
// encoding, the measure of what a tool catalog costs a model (DESIGN
// §13). It reads the rank table that npm's tiktoken package carries
// (encoders/o200k_base.json, installed by tools/tokens), so it works
// offline, and splits text into pieces with o200k_base's pattern, then
// each piece into tokens by byte-pair merging, as tiktoken does.
// tools/tokens/count.mjs counts with tiktoken itself; the tests check
// that both agree.
package tokens

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Encoding is a loaded o200k_base rank table. It is safe for concurrent
// use.
type Encoding struct {
	ranks map[string]int
	// piece matches the alternatives of the pattern that need no
	// look-ahead, anchored at the start of the text; whitespace runs
	// (the rest) are split by hand in [Encoding.next].
	piece *regexp.Regexp
}

// o200kPieces is o200k_base's pattern without its whitespace
// alternatives `\s+(?!\S)|\s+`, which RE2 cannot express.
const o200kPieces = `^(?:` +
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+)`

// Load reads the rank table of tiktoken's encoders/o200k_base.json (its
// pat_str must be o200k_base's, which this package implements).
func Load(path string) (*Encoding, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	var file struct {
		PatStr   string `json:"pat_str"`
		BPERanks string `json:"bpe_ranks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", path, err)
	}
	if !strings.HasSuffix(file.PatStr, `|\s+(?!\S)|\s+`) {
		return nil, fmt.Errorf("tokens: %s: not o200k_base's pattern", path)
	}
	// bpe_ranks is "! OFFSET TOKEN TOKEN …": base64 tokens with
	// consecutive ranks from OFFSET; a further "! OFFSET" starts a new
	// run.
	e := &Encoding{ranks: make(map[string]int, 200000), piece: regexp.MustCompile(o200kPieces)}
	fields := strings.Fields(file.BPERanks)
	rank := 0
	for i := 0; i < len(fields); i++ {
		if fields[i] == "!" && i+1 < len(fields) {
			n, err := strconv.Atoi(fields[i+1])
			if err != nil {
				return nil, fmt.Errorf("tokens: %s: rank offset %q", path, fields[i+1])
			}
			rank = n
			i++
			continue
		}
		tok, err := base64.StdEncoding.DecodeString(fields[i])
		if err != nil {
			return nil, fmt.Errorf("tokens: %s: token %q: %w", path, fields[i], err)
		}
		e.ranks[string(tok)] = rank
		rank++
	}
	if len(e.ranks) < 100000 {
		return nil, fmt.Errorf("tokens: %s: %d ranks, not o200k_base's table", path, len(e.ranks))
	}
	return e, nil
}

// Count is the number of tokens of text (no special tokens).
func (e *Encoding) Count(text string) int {
	n := 0
	for len(text) > 0 {
		k := e.next(text)
		n += e.pieceTokens(text[:k])
		text = text[k:]
	}
	return n
}

// next is the length of the piece text starts with.
func (e *Encoding) next(text string) int {
	if loc := e.piece.FindStringIndex(text); loc != nil && loc[1] > 0 {
		return loc[1]
	}
	// Whitespace: \s+(?!\S) takes the run but its last character when a
	// non-space follows (that one goes with the next piece), and the whole
	// run at the end of the text; else \s+ takes the run.
	end, last := 0, 0
	for end < len(text) {
		r, size := utf8.DecodeRuneInString(text[end:])
		if !isSpace(r) {
			break
		}
		last = end
		end += size
	}
	switch {
	case end == 0:
		_, size := utf8.DecodeRuneInString(text) // cannot happen: every character matches
		return size
	case end < len(text) && last > 0:
		return last
	}
	return end
}

// isSpace is \s as the pattern's engine (Rust's regex, Unicode) reads it.
func isSpace(r rune) bool { return unicode.IsSpace(r) || r == '\u0085' }

// pieceTokens is the number of tokens of one piece: one when the table
// has it whole, else what byte-pair merging leaves.
func (e *Encoding) pieceTokens(p string) int {
	if _, ok := e.ranks[p]; ok {
		return 1
	}
	parts := make([]string, len(p))
	for i := 0; i < len(p); i++ { // bytes, not runes
		parts[i] = p[i : i+1]
	}
	for len(parts) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(parts); i++ {
			if r, ok := e.ranks[parts[i]+parts[i+1]]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts[at] += parts[at+1]
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts)
}
