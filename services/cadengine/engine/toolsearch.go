package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// The catalog tools, tool_search and tool_describe, let an agent that was
// shown a few tools reach all of them. tool_search ranks the catalog by a
// query's words against each tool's name, its keywords (AutoCAD command
// names and aliases, everyday phrases, a few German, French and Spanish
// words: [enginev1.ToolInfo.Keywords]) and its description. Words match
// exactly, by prefix, or within a small edit distance or trigram
// likeness, so a misspelt command still finds its tool; no model is
// involved, and the ranking is the same for every caller.

// toolSearch answers tool_search.
func toolSearch(c *call, a *enginev1.ToolSearchArgs) (*enginev1.ToolSearchResult, error) {
	limit := 5
	if a.Limit != nil {
		limit = int(a.GetLimit())
	}
	res := &enginev1.ToolSearchResult{Tools: []*enginev1.ToolMatch{}}
	for _, m := range c.e.catalog.search(a.GetQuery(), limit) {
		res.Tools = append(res.Tools, &enginev1.ToolMatch{Name: m.info.Name, Summary: summary(m.info.Description), Score: m.score})
	}
	return res, nil
}

// toolDescribe answers tool_describe: the tools named, in the order asked.
func toolDescribe(c *call, a *enginev1.ToolDescribeArgs) (*enginev1.ToolDescribeResult, error) {
	res := &enginev1.ToolDescribeResult{}
	for i, name := range a.GetNames() {
		t := c.e.tools[name]
		if t == nil {
			return nil, invalidArgs("/names/"+strconv.Itoa(i), enginev1.ViolationReason_VIOLATION_REASON_INVALID, "no tool is named %q: tool_search finds tools by what they do", name)
		}
		info := t.info
		ann := info.Annotations
		res.Tools = append(res.Tools, &enginev1.Tool{
			Name:             info.Name,
			Description:      info.Description,
			InputSchemaJson:  []byte(info.InputSchema),
			OutputSchemaJson: []byte(info.OutputSchema),
			Annotations: &enginev1.ToolAnnotations{
				ReadOnly:    ann.GetReadOnly(),
				Destructive: ann.GetDestructive(),
				Idempotent:  ann.GetIdempotent(),
				Batchable:   ann.GetBatchable(),
				Interactive: ann.GetInteractive(),
			},
		})
	}
	return res, nil
}

// summary is the first sentence of a description.
func summary(d string) string {
	if i := strings.Index(d, ". "); i >= 0 {
		return d[:i+1]
	}
	return d
}

// toolIndex is the catalog prepared for search.
type toolIndex struct {
	tools []indexedTool
	// df counts, for each term, the tools that have it.
	df map[string]int
}

// indexedTool is one tool's searchable words.
type indexedTool struct {
	info enginev1.ToolInfo
	// phrases are the name (as written and with spaces) and each keyword,
	// normalized: a query equal to one of them is the tool.
	phrases []string
	// terms are the single words, each with the weight of where it comes
	// from (name and keywords 1, description less).
	terms map[string]float64
}

// Weights of a word by where a tool has it.
const (
	weightName        = 1.0
	weightKeyword     = 0.9
	weightDescription = 0.4
)

// newToolIndex indexes tools.
func newToolIndex(tools []enginev1.ToolInfo) *toolIndex {
	x := &toolIndex{df: map[string]int{}}
	for _, info := range tools {
		t := indexedTool{info: info, terms: map[string]float64{}}
		add := func(w string, weight float64) {
			if weight > t.terms[w] {
				t.terms[w] = weight
			}
		}
		name := strings.ReplaceAll(info.Name, "_", " ")
		t.phrases = append(t.phrases, normalize(info.Name), normalize(name))
		for _, w := range strings.Fields(normalize(name)) {
			add(w, weightName)
		}
		for _, k := range info.Keywords {
			k = normalize(k)
			t.phrases = append(t.phrases, k)
			for _, w := range contentWords(k) {
				add(w, weightKeyword)
			}
		}
		for _, w := range contentWords(normalize(info.Description)) {
			add(w, weightDescription)
		}
		for w := range t.terms {
			x.df[w]++
		}
		x.tools = append(x.tools, t)
	}
	return x
}

// match is a tool found, with its score in [0, 1].
type match struct {
	info  enginev1.ToolInfo
	score float64
}

// minScore is the least score search returns: below it a tool shares no
// more than a common word with the query.
const minScore = 0.2

// search ranks the tools for query and returns the best limit, best first
// (ties in catalog order).
func (x *toolIndex) search(query string, limit int) []match {
	q := normalize(query)
	if q == "" {
		return nil
	}
	words := contentWords(q)
	if len(words) == 0 {
		words = strings.Fields(q) // a query of only common words: use them
	}
	// A query word's importance is how rare the tools that match it are.
	importance := make([]float64, len(words))
	wordMatch := make([][]float64, len(words)) // [word][tool]
	n := float64(len(x.tools))
	for i, w := range words {
		wordMatch[i] = make([]float64, len(x.tools))
		hits := 0
		for j := range x.tools {
			m := x.tools[j].matchWord(w)
			wordMatch[i][j] = m
			if m >= 0.5 {
				hits++
			}
		}
		importance[i] = math.Log(1 + n/float64(1+hits))
	}
	var total float64
	for _, imp := range importance {
		total += imp
	}
	var out []match
	for j := range x.tools {
		t := &x.tools[j]
		var sum float64
		for i := range words {
			sum += importance[i] * wordMatch[i][j]
		}
		score := 0.0
		if total > 0 {
			score = 0.9 * sum / total
		}
		score = max(score, t.matchPhrase(q))
		if score >= minScore {
			out = append(out, match{info: t.info, score: math.Round(score*1000) / 1000})
		}
	}
	slices.SortStableFunc(out, func(a, b match) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// matchPhrase is how well the whole query q names the tool: 1 when it is
// its name or a keyword, less for a misspelling of one.
func (t *indexedTool) matchPhrase(q string) float64 {
	best := 0.0
	for _, p := range t.phrases {
		if p == q {
			return 1
		}
		if len(q) < 4 || len(p) < 4 {
			continue // a short alias is taken exactly or not at all
		}
		if d := editDistance(q, p); d <= typos(min(len(q), len(p))) {
			best = max(best, 0.95-0.05*float64(d))
			continue
		}
		if s := trigramSimilarity(q, p); s >= 0.5 {
			best = max(best, 0.85*s)
		}
	}
	return best
}

// matchWord is how well the query word w matches one of the tool's words,
// times that word's weight.
func (t *indexedTool) matchWord(w string) float64 {
	if weight, ok := t.terms[w]; ok {
		return weight
	}
	if len(w) < 3 {
		return 0
	}
	best := 0.0
	for term, weight := range t.terms {
		var m float64
		switch {
		case len(term) >= 3 && (strings.HasPrefix(term, w) || strings.HasPrefix(w, term)):
			m = 0.8 // plural, stem, a command typed short
		case len(w) >= 4 && len(term) >= 4 && editDistance(w, term) <= typos(min(len(w), len(term))):
			m = 0.75
		case len(w) >= 5:
			if s := trigramSimilarity(w, term); s >= 0.5 {
				m = 0.7 * s
			}
		}
		best = max(best, m*weight)
	}
	return best
}

// typos is how many edits a word of n letters may have and still match.
func typos(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// normalize lower-cases s, folds accents (é → e, ß → ss) and turns
// everything but letters and digits into single spaces.
func normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if f, ok := folds[r]; ok {
			b.WriteString(f)
			space = false
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// folds are the accented letters of German, French and Spanish as plain
// ones.
var folds = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ä': "a", 'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'í': "i", 'î': "i", 'ï': "i", 'ñ': "n", 'ó': "o", 'ô': "o", 'ö': "o", 'ø': "o",
	'ú': "u", 'ù': "u", 'û': "u", 'ü': "u", 'ß': "ss", 'œ': "oe",
}

// contentWords are the words of a normalized text without the common ones
// that say nothing about a tool.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are common English, German, French and Spanish words, and
// numbers, which every request has and no tool is about.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the this that these those it its is are be to of in on at for with and or
		by from into onto as my me i you your we our some any please can how do does what which where there here
		one two three four five six seven eight nine ten twelve 0 1 2 3 4 5 6 7 8 9 10
		der die das den dem des ein eine einen einer und oder mit von zu im auf fur bitte
		le la les un une des du de et ou avec pour en sur au aux ce cette
		el los las una unos unas del y o con para por al este esta`) {
		m[w] = true
	}
	return m
}()

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours), by
// bytes: normalized words are ASCII but for letters no fold covers.
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// trigramSimilarity is the Jaccard similarity of the trigrams of a and b,
// each padded with a space on both sides.
func trigramSimilarity(a, b string) float64 {
	ta, tb := trigrams(a), trigrams(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	common := 0
	for g := range ta {
		if tb[g] {
			common++
		}
	}
	return float64(common) / float64(len(ta)+len(tb)-common)
}

func trigrams(s string) map[string]bool {
	s = " " + s + " "
	m := map[string]bool{}
	for i := 0; i+3 <= len(s); i++ {
		m[s[i:i+3]] = true
	}
	return m
}
