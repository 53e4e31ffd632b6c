package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// The fast path answers the commonest request, a tools/call of revision
// 2026-07-28 that needs no session (see [Server.callPlain]), without the
// SDK's stateless handler, which makes a server session, a JSON-RPC
// connection and its goroutines for every POST and decodes the request five
// times. It decodes the request once, with the SDK's own decoders
// (jsonrpc.DecodeMessage, and the SDK's JSON library with the SDK's
// settings for the params), runs the same tool handler code, and writes
// the response the SDK would write, byte for byte: the result marshalled
// by the SDK's CallToolResult.MarshalJSON with the resultType the SDK adds
// for 2026-07-28 clients, encoded by jsonrpc.EncodeMessage, as one SSE
// message event.
//
// It takes a request only when it can tell that the SDK would run the
// tool handler on it, and the handler would answer it without a session:
// anything else — another method, a batch, a header or _meta the SDK
// would refuse, an unknown tool, a round of a multi-round-trip call, a
// call that may elicit or reports progress — goes to the SDK untouched
// (its body put back), so every protocol error and every session feature
// is the SDK's. TestFastPathAgrees checks both give the same bytes. The
// fast path runs no SDK middleware: the surface installs none, and one
// that does must leave such calls to the SDK.

// fastRequest is a tools/call the fast path takes.
type fastRequest struct {
	id   jsonrpc.ID
	tool *tool
	req  *mcpsdk.CallToolRequest
	rc   *relayCall
	bad  *enginev1.ToolError // arguments refused before any call
}

// decodeFast decodes r's body as a request the fast path answers, or
// reports false with r's body put back as it came (including a read
// error), for the SDK to answer. limit is the SDK's body limit.
func (s *Server) decodeFast(r *http.Request, limit int64) (*fastRequest, bool) {
	if !s.fastHeaders(r) {
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	r.Body.Close()
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f := s.parseFast(r.Header, body)
	if f == nil {
		return nil, false
	}
	f.req.Extra = &mcpsdk.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	return f, true
}

// fastHeaders reports whether r's method and headers are ones the SDK's
// stateless handler takes without a word: a POST of JSON at revision
// 2026-07-28 that accepts JSON and event streams, names tools/call, is
// no resumption and passes the SDK's DNS rebinding check.
func (s *Server) fastHeaders(r *http.Request) bool {
	h := r.Header
	if r.Method != http.MethodPost || h.Get("Mcp-Session-Id") != "" || len(h.Values("Last-Event-ID")) > 0 {
		return false
	}
	if h.Get("Mcp-Protocol-Version") != mrtrVersion || !slices.Contains(mcpsdk.SupportedProtocolVersions(), mrtrVersion) {
		return false
	}
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") == "" {
		return false
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if jsonOK, streamOK := accepts(h.Values("Accept")); !jsonOK || !streamOK {
		return false
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if isLoopback(local.String()) && !isLoopback(r.Host) {
			return false
		}
	}
	return true
}

// parseFast decodes body as a tools/call the fast path answers, or
// returns nil: where the SDK would refuse the request, or might, the SDK
// answers.
func (s *Server) parseFast(header http.Header, body []byte) *fastRequest {
	c, ok := decodeToolsCall(body)
	if !ok || c.meta == nil || c.name != header.Get("Mcp-Name") {
		return nil
	}
	t := s.tools[c.name]
	if t == nil || t.paramHeaders {
		return nil
	}
	m := s.metas.get(c.meta)
	if !m.ok {
		return nil
	}
	rc, bad := buildCall(t, c.arguments, m.relay)
	if rc != nil {
		rc.embed = embedAsked(m.meta)
	}
	if bad == nil && !s.runsPlain(t, rc, m.canElicit, m.progress) {
		return nil
	}
	req := &mcpsdk.CallToolRequest{Params: &mcpsdk.CallToolParamsRaw{Meta: m.meta, Name: c.name, Arguments: c.arguments}}
	return &fastRequest{id: c.id, tool: t, req: req, rc: rc, bad: bad}
}

// metaInfo is what a request's _meta tells the fast path, as the SDK
// reads it.
type metaInfo struct {
	// ok is true when the SDK takes the request as one of revision
	// 2026-07-28 with valid client capabilities and client info.
	ok        bool
	meta      mcpsdk.Meta
	canElicit bool            // the client declares elicitation
	progress  bool            // the request has a progress token
	relay     json.RawMessage // see [relayMeta]
}

// metaCache keeps what the SDK makes of each _meta it saw (a client sends
// the same one with every call), so that the fast path reads a request's
// _meta with the SDK's code without decoding it each time.
type metaCache struct {
	mu sync.Mutex // guards m
	m  map[string]*metaInfo
}

// maxMetas bounds a metaCache: _meta that differ per call (a progress
// token, a traceparent) are read afresh once it is full.
const maxMetas = 256

func (c *metaCache) get(raw []byte) *metaInfo {
	c.mu.Lock()
	m := c.m[string(raw)]
	c.mu.Unlock()
	if m != nil {
		return m
	}
	m = readMeta(raw)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*metaInfo{}
	}
	if len(c.m) < maxMetas {
		c.m[string(raw)] = m
	}
	c.mu.Unlock()
	return m
}

// readMeta reads raw, a request's _meta, with the SDK's decoder and the
// SDK's accessors, as the SDK's stateless handler and server session do.
func readMeta(raw []byte) *metaInfo {
	m := &metaInfo{}
	var meta mcpsdk.Meta
	if sdkUnmarshal(raw, &meta) != nil {
		return m
	}
	if v, _ := meta[mcpsdk.MetaKeyProtocolVersion].(string); v != mrtrVersion {
		return m
	}
	req := &mcpsdk.CallToolRequest{Params: &mcpsdk.CallToolParamsRaw{Meta: meta}}
	caps := req.ClientCapabilities()
	if caps == nil {
		return m
	}
	if _, ok := meta[mcpsdk.MetaKeyClientInfo]; ok && req.ClientInfo() == nil {
		return m
	}
	m.ok, m.meta = true, meta
	m.canElicit = caps.Elicitation != nil
	m.progress = req.Params.GetProgressToken() != nil
	m.relay = relayMeta(meta)
	return m
}

// serveFast answers f as the SDK's stateless handler would.
func (s *Server) serveFast(w http.ResponseWriter, r *http.Request, f *fastRequest) {
	var res *mcpsdk.CallToolResult
	var err error
	if f.bad != nil {
		res = failure(f.tool.name, f.bad, nil)
	} else {
		res, err = s.callPlain(r.Context(), f.req, f.tool, f.rc, principalOf(f.req.Extra))
	}
	if r.Context().Err() != nil {
		return // the client is gone; so is the SDK's stream
	}
	var data []byte
	var status int
	if err == nil {
		data, _ = appendResponse(nil, f.id, res, s.implJSON)
	}
	if data == nil {
		var encErr error
		data, status, encErr = s.encodeResponse(f.id, res, err)
		if encErr != nil {
			http.Error(w, encErr.Error(), http.StatusInternalServerError)
			return
		}
	}
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(data)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
	event := make([]byte, 0, len("event: message\ndata: \n\n")+len(data))
	event = append(event, "event: message\ndata: "...)
	event = append(event, data...)
	event = append(event, "\n\n"...)
	w.Write(event)
	http.NewResponseController(w).Flush()
}

// encodeResponse is the response to a call that answered res or failed
// with callErr, encoded by the SDK's code, and the HTTP status the SDK
// sends an error response with (0: as an event).
func (s *Server) encodeResponse(id jsonrpc.ID, res *mcpsdk.CallToolResult, callErr error) ([]byte, int, error) {
	resp := &jsonrpc.Response{ID: id, Error: callErr}
	if callErr == nil {
		var err error
		if resp.Result, err = completeResult(res, s.impl); err != nil {
			resp.Error = err
		}
	}
	data, err := jsonrpc.EncodeMessage(resp)
	return data, errorStatus(resp.Error), err
}

// completeResult is res as the SDK sends a complete tools/call result to
// a 2026-07-28 client: content never null, the server's implementation
// in _meta (SEP-2575), and "resultType":"complete", which the SDK's
// CallToolResult.MarshalJSON writes last (after the fields of the
// result, before inputRequests, which a complete result lacks) and only
// the SDK can set.
func completeResult(res *mcpsdk.CallToolResult, impl *mcpsdk.Implementation) (json.RawMessage, error) {
	cp := *res
	if cp.Content == nil {
		cp.Content = []mcpsdk.Content{}
	}
	if _, ok := cp.Meta[mcpsdk.MetaKeyServerInfo]; !ok {
		cp.Meta = maps.Clone(cp.Meta)
		if cp.Meta == nil {
			cp.Meta = mcpsdk.Meta{}
		}
		cp.Meta[mcpsdk.MetaKeyServerInfo] = impl
	}
	res = &cp
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(data) < 2 || data[len(data)-1] != '}' {
		return nil, errors.New("mcp: a tool result is not a JSON object")
	}
	out := make([]byte, 0, len(data)+len(`,"resultType":"complete"`))
	out = append(out, data[:len(data)-1]...)
	return append(out, `,"resultType":"complete"}`...), nil
}

// errorStatus is the HTTP status the SDK answers a JSON-RPC error with
// on revision 2026-07-28 (SEP-2575), 0 for an SSE response.
func errorStatus(err error) int {
	var jerr *jsonrpc.Error
	if err == nil || !errors.As(err, &jerr) {
		return 0
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcpsdk.CodeUnsupportedProtocolVersion, mcpsdk.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// runsPlain reports whether a call of t runs without a session of its
// own (see [Server.toolHandler]): unless it may ask a client that can
// elicit, or it is a batch that reports progress.
func (s *Server) runsPlain(t *tool, rc *relayCall, canElicit, progress bool) bool {
	return !(canElicit && t.mayAsk(rc.encode(""), s.cfg.ApprovalPolicy, annotationsOf)) && !(t.batch && progress)
}

// sdkUnmarshal decodes data as the SDK decodes params: its JSON library
// (segmentio's), keys matched case-sensitively. The SDK also bounds the
// nesting depth, which jsonrpc.DecodeMessage has already checked for the
// whole message.
func sdkUnmarshal(data []byte, v any) error {
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// accepts is the SDK's reading of Accept headers: whether they take JSON
// and event streams.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for _, raw := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// isLoopback is the SDK's test of a loopback address or host.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// errReader fails every read with err: a body read that failed, put back.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// appendResponse appends the response that answers id with res, as the
// SDK would encode it (see [completeResult]; jsonrpc.EncodeMessage adds
// the envelope and escapes nothing more), for the results the surface
// makes: _meta of strings, integers, booleans, raw JSON and the server's
// implementation, text content and resource links, structuredContent as
// raw JSON. For anything else it reports false, and the SDK's encoders
// are used. TestFastPathAgrees compares the bytes.
func appendResponse(b []byte, id jsonrpc.ID, res *mcpsdk.CallToolResult, impl []byte) ([]byte, bool) {
	if res.InputRequests != nil || res.RequestState != "" {
		return nil, false
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch v := id.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case string:
		if _, ok := plainString([]byte(`"` + v + `"`)); !ok {
			return nil, false
		}
		b = append(append(append(b, '"'), v...), '"')
	default:
		return nil, false
	}
	b = append(b, `,"result":{"_meta":{`...)
	keys := make([]string, 0, len(res.Meta)+1)
	for k := range res.Meta {
		keys = append(keys, k)
	}
	if _, ok := res.Meta[mcpsdk.MetaKeyServerInfo]; !ok {
		keys = append(keys, mcpsdk.MetaKeyServerInfo)
	}
	slices.Sort(keys)
	var ok bool
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if b, ok = appendJSON(b, k); !ok {
			return nil, false
		}
		b = append(b, ':')
		v, set := res.Meta[k]
		if !set {
			b = append(b, impl...)
			continue
		}
		switch v := v.(type) {
		case string:
			b, ok = appendJSON(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case json.RawMessage:
			b, ok = appendJSON(b, v)
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
	}
	b = append(b, `},"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		switch c := c.(type) {
		case *mcpsdk.TextContent:
			if c.Meta != nil || c.Annotations != nil {
				return nil, false
			}
			b = append(b, `{"type":"text","text":`...)
			if b, ok = appendJSON(b, c.Text); !ok {
				return nil, false
			}
		case *mcpsdk.ResourceLink:
			if c.Size != nil || c.Meta != nil || c.Annotations != nil || c.Icons != nil {
				return nil, false
			}
			b = append(b, `{"type":"resource_link"`...)
			for _, f := range [...]struct{ name, value string }{{"mimeType", c.MIMEType}, {"uri", c.URI}, {"name", c.Name}, {"title", c.Title}, {"description", c.Description}} {
				if f.value == "" {
					continue
				}
				b = append(append(append(b, `,"`...), f.name...), `":`...)
				if b, ok = appendJSON(b, f.value); !ok {
					return nil, false
				}
			}
		default:
			return nil, false
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.StructuredContent != nil {
		raw, isRaw := res.StructuredContent.(json.RawMessage)
		if !isRaw || len(raw) == 0 {
			return nil, false
		}
		b = append(b, `,"structuredContent":`...)
		if b, ok = appendJSON(b, raw); !ok {
			return nil, false
		}
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, `,"resultType":"complete"}}`...), true
}

// appendJSON appends v, a string or raw JSON, as encoding/json's Marshal
// writes it: a string quoted and HTML-escaped, raw JSON checked,
// compacted and HTML-escaped. It reports false for raw JSON it does not
// take (see [scanner]; json.Marshal may take some of it).
func appendJSON[T string | json.RawMessage](b []byte, v T) ([]byte, bool) {
	switch v := any(v).(type) {
	case string:
		return appendString(b, v), true
	case json.RawMessage:
		sc := &scanner{b: v}
		sc.ws()
		if !sc.value() || !sc.end() {
			return nil, false
		}
		return appendCompactHTML(b, v), true
	}
	return nil, false
}

// appendString appends s as a JSON string as encoding/json writes it with
// HTML escaping: ", \ and control characters escaped (\b, \f, \n, \r,
// \t by name), <, > and & as \u003c…, U+2028 and U+2029 escaped, and
// invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendCompactHTML appends the valid JSON src without insignificant
// whitespace, with <, >, &, U+2028 and U+2029 in its strings escaped, as
// encoding/json's Marshal writes a json.RawMessage.
func appendCompactHTML(b, src []byte) []byte {
	const hex = "0123456789abcdef"
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case ' ', '\t', '\r', '\n':
				b = append(b, src[start:i]...)
				start = i + 1
			case '"':
				inString = true
			}
			continue
		}
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case c == '<' || c == '>' || c == '&':
			b = append(b, src[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			b = append(b, src[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			start = i + 3
			i += 2
		}
	}
	return append(b, src[start:]...)
}
