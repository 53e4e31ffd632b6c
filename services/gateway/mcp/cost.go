package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/tokens"
)

// listOnlyListed is the middleware that makes tools/list show the
// profile's tools only; every tool stays registered, so tools/call finds
// any of them.
func (s *Server) listOnlyListed(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		res, err := next(ctx, method, req)
		if list, ok := res.(*mcpsdk.ListToolsResult); ok && err == nil && method == "tools/list" {
			list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcpsdk.Tool) bool { return !s.listed[t.Name] })
		}
		return res, err
	}
}

// Cost is what a set of tools costs a model in a tools/list result.
type Cost struct {
	// Name is a profile's or a group's name.
	Name string
	// Tools is how many tools.
	Tools int
	// Bytes is the JSON size of their tools/list result ({"tools":[…]}).
	Bytes int
	// Tokens is its o200k_base token count, exact when Exact, else an
	// estimate (Bytes/4).
	Tokens int
	// Exact says whether Tokens was counted by the tokenizer.
	Exact bool
}

// TokenCounter counts the o200k_base tokens of each text, by name.
type TokenCounter func(texts map[string]string) (map[string]int, error)

// ListJSON is the tools/list result that lists tools, as the server
// encodes it.
func ListJSON(tools []*tool) ([]byte, error) {
	list := &mcpsdk.ListToolsResult{Tools: []*mcpsdk.Tool{}}
	for _, t := range tools {
		list.Tools = append(list.Tools, t.mcp)
	}
	return json.Marshal(list)
}

// CatalogCost measures each profile's tools/list and each group's share
// of the full catalog (a group as a tools/list of it alone). count nil
// estimates tokens as bytes/4.
func CatalogCost(catalog []*tool, count TokenCounter) (profiles, groups []Cost, err error) {
	texts := map[string]string{}
	var names []string
	measure := func(key string, tools []*tool) (Cost, error) {
		data, err := ListJSON(tools)
		if err != nil {
			return Cost{}, err
		}
		texts[key] = string(data)
		names = append(names, key)
		return Cost{Tools: len(tools), Bytes: len(data), Tokens: len(data) / 4}, nil
	}
	for _, p := range Profiles {
		listed, err := Listed(catalog, p, nil)
		if err != nil {
			return nil, nil, err
		}
		c, err := measure("profile "+p, listed)
		if err != nil {
			return nil, nil, err
		}
		c.Name = p
		profiles = append(profiles, c)
	}
	for _, g := range Groups(catalog) {
		var tools []*tool
		for _, t := range catalog {
			if t.group == g {
				tools = append(tools, t)
			}
		}
		c, err := measure("group "+g, tools)
		if err != nil {
			return nil, nil, err
		}
		c.Name = g
		groups = append(groups, c)
	}
	if count == nil {
		return profiles, groups, nil
	}
	counts, err := count(texts)
	if err != nil {
		return nil, nil, err
	}
	for i := range profiles {
		profiles[i].Tokens, profiles[i].Exact = counts["profile "+profiles[i].Name], true
	}
	for i := range groups {
		groups[i].Tokens, groups[i].Exact = counts["group "+groups[i].Name], true
	}
	return profiles, groups, nil
}

// NodeTokenCounter counts tokens with tools/tokens/count.mjs, run by node,
// in dir (a checkout's tools/tokens, after npm ci there).
func NodeTokenCounter(dir string) TokenCounter {
	return func(texts map[string]string) (map[string]int, error) {
		in, err := json.Marshal(texts)
		if err != nil {
			return nil, err
		}
		cmd := exec.Command("node", "count.mjs")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("token count (node count.mjs in %s): %w: %s", dir, err, stderr.Bytes())
		}
		var counts map[string]int
		if err := json.Unmarshal(out, &counts); err != nil {
			return nil, fmt.Errorf("token count: %w", err)
		}
		return counts, nil
	}
}

// FindTokenizer is the tools/tokens directory with npm tiktoken
// installed (npm ci there): $CADBRIDGE_TOKENS_DIR, else tools/tokens in
// the working directory or one above it.
func FindTokenizer() (string, error) {
	var dirs []string
	if d := os.Getenv("CADBRIDGE_TOKENS_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(d, "tools", "tokens"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(rankTable(d)); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no tools/tokens with tiktoken installed (npm ci in tools/tokens, or set CADBRIDGE_TOKENS_DIR)")
}

// rankTable is the o200k_base table in a tools/tokens directory.
func rankTable(dir string) string {
	return filepath.Join(dir, "node_modules", "tiktoken", "encoders", "o200k_base.json")
}

// GoTokenCounter counts tokens with package tokens over the o200k_base
// table of the tools/tokens directory dir: no node needed.
func GoTokenCounter(dir string) (TokenCounter, error) {
	enc, err := tokens.Load(rankTable(dir))
	if err != nil {
		return nil, err
	}
	return func(texts map[string]string) (map[string]int, error) {
		out := make(map[string]int, len(texts))
		for name, text := range texts {
			out[name] = enc.Count(text)
		}
		return out, nil
	}, nil
}

// WriteCatalogCost prints what the catalog costs a model: each profile's
// tools/list, then each group's share, in bytes and o200k_base tokens —
// exact when node and tools/tokens (npm tiktoken) are found, else an
// estimate, and the output says which.
func WriteCatalogCost(w io.Writer, cfg Config) error {
	catalog, err := Catalog()
	if err != nil {
		return err
	}
	var count TokenCounter
	dir, why := FindTokenizer()
	if why == nil {
		count, why = GoTokenCounter(dir)
	}
	profiles, groups, err := CatalogCost(catalog, count)
	if err != nil {
		return err
	}
	col := "tokens"
	if count == nil {
		col = "~tokens"
		fmt.Fprintf(w, "token counts are ESTIMATES (bytes/4): %v\n", why)
	} else {
		fmt.Fprintf(w, "token counts: o200k_base, exact (the rank table of %s)\n", rankTable(dir))
	}
	fmt.Fprintf(w, "%-12s %6s %8s %8s %10s\n", "profile", "tools", "bytes", col, col+"/tool")
	for _, c := range profiles {
		mark := ""
		if c.Name == cfg.Profile && len(cfg.Tools) == 0 {
			mark = " (served)"
		}
		fmt.Fprintf(w, "%-12s %6d %8d %8d %10d%s\n", c.Name, c.Tools, c.Bytes, c.Tokens, c.Tokens/max(c.Tools, 1), mark)
	}
	fmt.Fprintf(w, "\n%-12s %6s %8s %8s %10s\n", "group", "tools", "bytes", col, col+"/tool")
	for _, c := range groups {
		fmt.Fprintf(w, "%-12s %6d %8d %8d %10d\n", c.Name, c.Tools, c.Bytes, c.Tokens, c.Tokens/max(c.Tools, 1))
	}
	return nil
}
