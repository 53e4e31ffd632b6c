package contractgen

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The Direction enum values of cad.gateway.v1.
const (
	clientToServer = 1
	serverToClient = 2
)

// requestMeta is the message of the "_meta" member every call may carry.
const requestMeta = "cad.gateway.v1.RequestMeta"

type method struct {
	name, summary string
	direction     int32
	notification  bool
	needsSession  bool
	event         bool
	decl          *protogen.Message
	params        *protogen.Message
	result        *protogen.Message // nil for notifications and events
}

// takesMeta reports whether the method's params may carry "_meta": every
// call does, in both directions (server requests carry the trace context
// back to the client).
func (m method) takesMeta() bool {
	return !m.notification && !m.event
}

// constName is the Go constant of the method's wire name:
// MethodSessionResume, EventDocumentChanged.
func (m method) constName() string {
	if m.event {
		return "Event" + goName(m.name)
	}
	return "Method" + goName(m.name)
}

func (g *generator) declaredMethods(f *protogen.File) ([]method, error) {
	var methods []method
	for _, m := range f.Messages {
		opt := g.opts.get(m.Desc, methodOption)
		if opt == nil {
			continue
		}
		md := method{
			name:         str(opt, "name"),
			summary:      str(opt, "summary"),
			direction:    enumNumber(opt, "direction"),
			notification: boolean(opt, "notification"),
			needsSession: boolean(opt, "needs_session"),
			event:        boolean(opt, "event"),
			decl:         m,
		}
		for _, fd := range m.Fields {
			switch fd.Desc.Name() {
			case "params":
				md.params = fd.Message
			case "result":
				md.result = fd.Message
			default:
				return nil, fmt.Errorf("method %s: declaration %s has field %s; only params and result are allowed", md.name, m.Desc.Name(), fd.Desc.Name())
			}
		}
		if md.params == nil {
			return nil, fmt.Errorf("method %s: declaration %s has no params field", md.name, m.Desc.Name())
		}
		if (md.result == nil) != (md.notification || md.event) {
			return nil, fmt.Errorf("method %s: a result is required for calls and forbidden for notifications and events", md.name)
		}
		if md.direction != clientToServer && md.direction != serverToClient {
			return nil, fmt.Errorf("method %s: direction is not set", md.name)
		}
		methods = append(methods, md)
	}
	return methods, nil
}

// methods writes the method table and the OpenRPC document of a file that
// declares methods.
func (g *generator) methods(f *protogen.File) error {
	methods, err := g.declaredMethods(f)
	if err != nil || len(methods) == 0 {
		return err
	}
	meta, err := g.message(requestMeta)
	if err != nil {
		return err
	}
	doc, err := g.openRPC(methods, meta.Desc)
	if err != nil {
		return err
	}
	g.plugin.NewGeneratedFile(dir(f)+"/openrpc.json", f.GoImportPath).P(string(doc))

	gf := g.plugin.NewGeneratedFile(f.GeneratedFilenamePrefix+".contract.go", f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	gf.Import(protogen.GoImportPath("embed"))
	protoMessage := gf.QualifiedGoIdent(protogen.GoIdent{GoName: "Message", GoImportPath: "google.golang.org/protobuf/proto"})
	gf.P("// MethodInfo describes one JSON-RPC method, server request, notification")
	gf.P("// or event, generated from its declaration message.")
	gf.P("type MethodInfo struct {")
	gf.P("// Name is the wire method (or the event type, for events).")
	gf.P("Name string")
	gf.P("// Direction says who sends it.")
	gf.P("Direction Direction")
	gf.P("// Notification is true for methods without an id or result.")
	gf.P("Notification bool")
	gf.P("// NeedsSession is true when the method needs the caller's session.")
	gf.P("NeedsSession bool")
	gf.P("// Event is true for event types carried by the event notification.")
	gf.P("Event bool")
	gf.P("// Summary is one sentence for people.")
	gf.P("Summary string")
	gf.P("// Params is a typed nil of the params message (the payload, for events).")
	gf.P("Params ", protoMessage)
	gf.P("// Result is a typed nil of the result message; nil for notifications.")
	gf.P("Result ", protoMessage)
	gf.P("// ParamsSchema is the JSON Schema of params (with _meta for calls).")
	gf.P("ParamsSchema string")
	gf.P("// ResultSchema is the JSON Schema of the result; empty for notifications.")
	gf.P("ResultSchema string")
	gf.P("}")
	gf.P()
	gf.P("// Wire names of the methods and events.")
	gf.P("const (")
	for _, m := range methods {
		gf.P(m.constName(), " = ", fmt.Sprintf("%q", m.name))
	}
	gf.P(")")
	gf.P()
	gf.P("// Methods is every method and event, in declaration order.")
	gf.P("var Methods = []MethodInfo{")
	for _, m := range methods {
		var extra map[string]any
		if m.takesMeta() {
			extra = map[string]any{"_meta": newSchemas(g.opts, "#/$defs/").object(meta.Desc)}
		}
		params, err := schemaString(document(g.opts, m.params.Desc, extra))
		if err != nil {
			return err
		}
		gf.P("{")
		gf.P("Name: ", m.constName(), ",")
		gf.P("Direction: ", directionName(m.direction), ",")
		if m.notification {
			gf.P("Notification: true,")
		}
		if m.needsSession {
			gf.P("NeedsSession: true,")
		}
		if m.event {
			gf.P("Event: true,")
		}
		gf.P("Summary: ", fmt.Sprintf("%q", m.summary), ",")
		gf.P("Params: (*", gf.QualifiedGoIdent(m.params.GoIdent), ")(nil),")
		gf.P("ParamsSchema: ", goString(params), ",")
		if m.result != nil {
			result, err := schemaString(document(g.opts, m.result.Desc, nil))
			if err != nil {
				return err
			}
			gf.P("Result: (*", gf.QualifiedGoIdent(m.result.GoIdent), ")(nil),")
			gf.P("ResultSchema: ", goString(result), ",")
		}
		gf.P("},")
	}
	gf.P("}")
	gf.P()
	gf.P("// OpenRPC is the OpenRPC document of the gateway (served at /openrpc.json")
	gf.P("// and by rpc.discover).")
	gf.P("//")
	gf.P("//go:embed openrpc.json")
	gf.P("var OpenRPC []byte")
	return nil
}

func directionName(d int32) string {
	if d == serverToClient {
		return "Direction_DIRECTION_SERVER_TO_CLIENT"
	}
	return "Direction_DIRECTION_CLIENT_TO_SERVER"
}

// openRPC builds the OpenRPC document: every method with its params by name
// and its result, events under x-events, and every message under
// components/schemas.
func (g *generator) openRPC(methods []method, meta protoreflect.MessageDescriptor) ([]byte, error) {
	s := newSchemas(g.opts, "#/components/schemas/")
	var rpcMethods, events []any
	for _, m := range methods {
		if m.event {
			events = append(events, map[string]any{
				"name":    m.name,
				"summary": m.summary,
				"schema":  s.ref(m.params.Desc),
			})
			continue
		}
		params := []any{}
		fields := m.params.Desc.Fields()
		obj := s.object(m.params.Desc)
		required := map[string]bool{}
		if r, ok := obj["required"].([]string); ok {
			for _, name := range r {
				required[name] = true
			}
		}
		props := obj["properties"].(map[string]any)
		for i := 0; i < fields.Len(); i++ {
			name, _, hidden := g.opts.wireField(fields.Get(i))
			if hidden {
				continue
			}
			params = append(params, map[string]any{
				"name":     name,
				"required": required[name],
				"schema":   props[name],
			})
		}
		if m.takesMeta() {
			params = append(params, map[string]any{
				"name":        "_meta",
				"required":    false,
				"description": "Trace context and operation id.",
				"schema":      s.ref(meta),
			})
		}
		entry := map[string]any{
			"name":           m.name,
			"summary":        m.summary,
			"paramStructure": "by-name",
			"params":         params,
		}
		if m.result != nil {
			entry["result"] = map[string]any{"name": "result", "schema": s.ref(m.result.Desc)}
		}
		if m.direction == serverToClient {
			entry["x-direction"] = "server-to-client"
		}
		rpcMethods = append(rpcMethods, entry)
	}
	doc := map[string]any{
		"openrpc": OpenRPCVersion,
		"info": map[string]any{
			"title":       "cadbridge gateway",
			"version":     "v1",
			"description": "JSON-RPC 2.0 edge of cadbridge. Methods with x-direction server-to-client are sent by the gateway to the client; events arrive in the event notification, typed as listed under x-events.",
		},
		"methods":    rpcMethods,
		"x-events":   events,
		"components": map[string]any{"schemas": s.defs},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
