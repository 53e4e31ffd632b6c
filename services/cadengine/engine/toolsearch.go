package engine

import (
	"maps"
	"math"
	"math/bits"
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
	for _, m := range c.e.catalog().search(a.GetQuery(), limit) {
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

// toolIndex is the catalog prepared for search. The words and phrases
// of every tool are kept once each (many tools share them), with their
// trigrams indexed, so that a query compares each of its words with each
// distinct word of the catalog once, and finds the trigram-alike ones
// through the index rather than by comparing every pair.
type toolIndex struct {
	tools   []indexedTool
	words   vocabulary // every tool's single words
	phrases vocabulary // every tool's name and keywords, whole
}

// indexedTool is one tool's searchable words.
type indexedTool struct {
	info enginev1.ToolInfo
	// phrases are the name (as written and with spaces) and each keyword,
	// normalized (ids in the index's phrases): a query equal to one of
	// them is the tool.
	phrases []int32
	// terms are the single words, each with the weight of where it comes
	// from (name and keywords 1, description less); termIDs and
	// termWeights the same, by id in the index's words.
	terms       map[string]float64
	termIDs     []int32
	termWeights []float64
}

// Weights of a word by where a tool has it.
const (
	weightName        = 1.0
	weightKeyword     = 0.9
	weightDescription = 0.4
)

// newToolIndex indexes tools.
func newToolIndex(tools []enginev1.ToolInfo) *toolIndex {
	x := &toolIndex{}
	for _, info := range tools {
		t := indexedTool{info: info, terms: map[string]float64{}}
		add := func(w string, weight float64) {
			if weight > t.terms[w] {
				t.terms[w] = weight
			}
		}
		name := strings.ReplaceAll(info.Name, "_", " ")
		phrases := []string{normalize(info.Name), normalize(name)}
		for _, w := range strings.Fields(normalize(name)) {
			add(w, weightName)
		}
		for _, k := range info.Keywords {
			k = normalize(k)
			phrases = append(phrases, k)
			for _, w := range contentWords(k) {
				add(w, weightKeyword)
			}
		}
		for _, w := range contentWords(normalize(info.Description)) {
			add(w, weightDescription)
		}
		for _, p := range phrases {
			t.phrases = append(t.phrases, x.phrases.id(p))
		}
		for _, w := range slices.Sorted(maps.Keys(t.terms)) {
			t.termIDs = append(t.termIDs, x.words.id(w))
			t.termWeights = append(t.termWeights, t.terms[w])
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
	likeness := make([]float64, len(x.words.items))
	n := float64(len(x.tools))
	for i, w := range words {
		x.words.wordLikeness(w, likeness)
		wordMatch[i] = make([]float64, len(x.tools))
		hits := 0
		for j := range x.tools {
			m := x.tools[j].matchWord(w, likeness)
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
	phraseMatch := make([]float64, len(x.phrases.items))
	x.phrases.phraseLikeness(q, phraseMatch)
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
		for _, p := range t.phrases {
			score = max(score, phraseMatch[p])
		}
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

// matchWord is how well the query word w matches one of the tool's words,
// times that word's weight, given w's likeness to every word of the
// index (see [vocabulary.wordLikeness]).
func (t *indexedTool) matchWord(w string, likeness []float64) float64 {
	if weight, ok := t.terms[w]; ok {
		return weight
	}
	best := 0.0
	for k, id := range t.termIDs {
		best = max(best, likeness[id]*t.termWeights[k])
	}
	return best
}

// vocabulary is a set of normalized strings (words, or whole phrases),
// each with an id, and an index of their trigrams.
type vocabulary struct {
	items []string
	ids   map[string]int32
	// letters are each item's letters as a set (a bit for each of a–z,
	// and one for anything else): two strings an edit apart differ in at
	// most two of them.
	letters []uint32
	// trigrams counts each item's distinct trigrams; postings lists, for
	// each trigram, the items that have it.
	trigrams []int32
	postings map[uint32][]int32
}

// id is s's id, added if new.
func (v *vocabulary) id(s string) int32 {
	if id, ok := v.ids[s]; ok {
		return id
	}
	if v.ids == nil {
		v.ids, v.postings = map[string]int32{}, map[uint32][]int32{}
	}
	id := int32(len(v.items))
	v.ids[s] = id
	v.items = append(v.items, s)
	v.letters = append(v.letters, letterSet(s))
	grams := trigrams(s)
	v.trigrams = append(v.trigrams, int32(len(grams)))
	for _, g := range grams {
		v.postings[g] = append(v.postings[g], id)
	}
	return id
}

// similarity sets sim[i] to the Jaccard similarity of the trigrams of s
// and of item i, for the items that share one with s (the others keep 0).
func (v *vocabulary) similarity(s string, sim []float64) {
	clear(sim)
	grams := trigrams(s)
	for _, g := range grams {
		for _, i := range v.postings[g] {
			sim[i]++
		}
	}
	for i, common := range sim {
		if common > 0 {
			sim[i] = common / (float64(len(grams)) + float64(v.trigrams[i]) - common)
		}
	}
}

// wordLikeness sets like[i] to how well the query word w matches item i
// without being it: a prefix of it or it of w 0.8 (plural, stem, a
// command typed short), a misspelling of it 0.75, alike by trigrams
// 0.7 × their similarity (from half alike), else 0.
func (v *vocabulary) wordLikeness(w string, like []float64) {
	v.similarity(w, like)
	if len(w) < 3 {
		clear(like)
		return
	}
	letters := letterSet(w)
	for i, term := range v.items {
		sim := like[i]
		var m float64
		switch {
		case len(term) >= 3 && (strings.HasPrefix(term, w) || strings.HasPrefix(w, term)):
			m = 0.8
		case len(w) >= 4 && len(term) >= 4 && v.withinTypos(i, w, letters):
			m = 0.75
		case len(w) >= 5 && sim >= 0.5:
			m = 0.7 * sim
		}
		like[i] = m
	}
}

// phraseLikeness sets like[i] to how well the whole query q names item
// i: 1 when it is it, 0.95 less 0.05 an edit for a misspelling of it,
// 0.85 × their trigram similarity from half alike; a short one (under four
// letters) is taken exactly or not at all.
func (v *vocabulary) phraseLikeness(q string, like []float64) {
	v.similarity(q, like)
	letters := letterSet(q)
	for i, p := range v.items {
		sim := like[i]
		like[i] = 0
		switch {
		case p == q:
			like[i] = 1
		case len(q) < 4 || len(p) < 4:
		case v.withinTypos(i, q, letters):
			like[i] = 0.95 - 0.05*float64(editDistance(q, p))
		case sim >= 0.5:
			like[i] = 0.85 * sim
		}
	}
}

// withinTypos reports whether s is within typos edits of item i, trying
// first what is cheap: lengths, and the letters each has.
func (v *vocabulary) withinTypos(i int, s string, letters uint32) bool {
	item := v.items[i]
	k := typos(min(len(s), len(item)))
	if d := len(s) - len(item); d > k || -d > k || bits.OnesCount32(letters^v.letters[i]) > 2*k {
		return false
	}
	return editDistance(s, item) <= k
}

// letterSet is the set of s's letters a–z, with bit 26 for any other
// byte.
func letterSet(s string) uint32 {
	var set uint32
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			set |= 1 << (c - 'a')
		} else {
			set |= 1 << 26
		}
	}
	return set
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

// trigrams are the distinct trigrams of s padded with a space on both
// sides, each as its three bytes.
func trigrams(s string) []uint32 {
	s = " " + s + " "
	out := make([]uint32, 0, len(s))
	for i := 0; i+3 <= len(s); i++ {
		g := uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2])
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}
