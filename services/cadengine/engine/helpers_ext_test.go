package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// obj is a JSON object literal for tool arguments.
type obj = map[string]any

// fixture is an engine with one document.
type fixture struct {
	t   testing.TB
	e   *engine.Engine
	doc string
}

func newEngine(t testing.TB, store store.Store) *engine.Engine {
	t.Helper()
	if store == nil {
		store = memory.New()
	}
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	e := newEngine(t, nil)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatalf("CreateDocument: %v", err)
	}
	return &fixture{t: t, e: e, doc: info.DocumentId}
}

// outputSchemas are the compiled output schemas of every tool: every
// result a test sees is checked against its contract.
var outputSchemas = func() map[string]*contract.Schema {
	m := map[string]*contract.Schema{}
	for _, t := range enginev1.Tools {
		m[t.Name] = contract.MustCompileSchema(t.Name+".result", t.OutputSchema)
	}
	return m
}()

// call runs a tool and checks a successful result against the tool's
// output schema.
func (f *fixture) call(tool string, args obj) *enginev1.CallToolResponse {
	f.t.Helper()
	return callTool(f.t, f.e, f.doc, tool, args)
}

func callTool(t testing.TB, e *engine.Engine, doc, tool string, args obj) *enginev1.CallToolResponse {
	t.Helper()
	req := &enginev1.CallToolRequest{Tool: tool}
	if doc != "" {
		req.DocumentId = &doc
	}
	if args != nil {
		req.ArgsJson = mustJSON(args)
	}
	resp, err := e.CallTool(context.Background(), engine.Caller{Principal: "tester"}, req)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	if resp.Ok {
		if s := outputSchemas[tool]; s != nil {
			if v := s.Validate(resultObj(resp.ResultJson)); v != nil {
				t.Fatalf("CallTool(%s) result breaks its output schema: %v", tool, v)
			}
		}
	}
	return resp
}

// ok runs a tool that must succeed and returns its result.
func (f *fixture) ok(tool string, args obj) obj {
	f.t.Helper()
	resp := f.call(tool, args)
	if !resp.Ok {
		f.t.Fatalf("%s(%v) failed: %v", tool, args, resp.Error)
	}
	return resultObj(resp.ResultJson)
}

// fail runs a tool that must fail with kind and returns the error.
func (f *fixture) fail(tool string, args obj, kind enginev1.ErrorKind) *enginev1.ToolError {
	f.t.Helper()
	resp := f.call(tool, args)
	if resp.Ok {
		f.t.Fatalf("%s(%v) = ok %v, want error %v", tool, args, resultObj(resp.ResultJson), kind)
	}
	if resp.Error.GetKind() != kind {
		f.t.Fatalf("%s(%v) error = %v, want kind %v", tool, args, resp.Error, kind)
	}
	return resp.Error
}

// handle creates an entity with a create tool and returns its handle.
func (f *fixture) handle(tool string, args obj) string {
	f.t.Helper()
	return f.ok(tool, args)["handle"].(string)
}

func (f *fixture) get(h string) obj {
	f.t.Helper()
	return f.ok(enginev1.ToolEntityGet, obj{"handle": h})
}

func (f *fixture) info() *enginev1.DocumentInfo {
	f.t.Helper()
	info, err := f.e.GetDocument(context.Background(), f.doc)
	if err != nil {
		f.t.Fatalf("GetDocument: %v", err)
	}
	return info
}

// mustJSON is the JSON of args.
func mustJSON(args obj) []byte {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("args %v: %v", args, err))
	}
	return b
}

// resultObj is a result's JSON as an object (numbers as float64), nil for
// none.
func resultObj(data []byte) obj {
	if data == nil {
		return nil
	}
	var v obj
	if err := json.Unmarshal(data, &v); err != nil {
		panic(fmt.Sprintf("result %s: %v", data, err))
	}
	return v
}

func mustStruct(t testing.TB, args obj) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(args)
	if err != nil {
		t.Fatalf("args %v: %v", args, err)
	}
	return s
}

// pt reads a {x, y} object.
func pt(v any) [2]float64 {
	m := v.(map[string]any)
	return [2]float64{m["x"].(float64), m["y"].(float64)}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func nearPt(a, b [2]float64) bool { return near(a[0], b[0]) && near(a[1], b[1]) }

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const (
	kindInvalid     = enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS
	kindFailed      = enginev1.ErrorKind_ERROR_KIND_FAILED
	kindRefused     = enginev1.ErrorKind_ERROR_KIND_REFUSED
	kindUnsupported = enginev1.ErrorKind_ERROR_KIND_UNSUPPORTED
	kindUnknownTool = enginev1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL
)
