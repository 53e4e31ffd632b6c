package contractgen

import (
	"fmt"
	"path"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

type tool struct {
	name, description string
	keywords          []string
	lean              bool
	annotations       []string // ToolAnnotations fields that are true
	args, result      *protogen.Message
}

// tools writes the tool table of a package whose files declare tools, in
// the files' order (by path: tools.proto, then tools_<group>.proto) and
// each file's declaration order, to the package's tools.contract.go.
func (g *generator) tools(files []*protogen.File) error {
	var tools []tool
	for _, m := range messagesOf(files) {
		opt := g.opts.get(m.Desc, toolOption)
		if opt == nil {
			continue
		}
		t := tool{name: str(opt, "name"), description: str(opt, "description"), keywords: strs(opt, "keywords"), lean: boolean(opt, "lean"), args: m}
		for _, k := range t.keywords {
			if k != strings.ToLower(k) || strings.TrimSpace(k) != k || k == "" {
				return fmt.Errorf("tool %s: keyword %q: keywords are lower case, without surrounding spaces", t.name, k)
			}
		}
		for _, a := range []string{"read_only", "destructive", "idempotent", "batchable", "interactive"} {
			if boolean(opt, a) {
				t.annotations = append(t.annotations, a)
			}
		}
		resultName := protoreflect.FullName(str(opt, "result"))
		if resultName == "" {
			argsName := string(m.Desc.FullName())
			if !strings.HasSuffix(argsName, "Args") {
				return fmt.Errorf("tool %s: message %s must end in Args", t.name, argsName)
			}
			resultName = protoreflect.FullName(strings.TrimSuffix(argsName, "Args") + "Result")
		}
		result, err := g.message(resultName)
		if err != nil {
			return fmt.Errorf("tool %s: result: %w", t.name, err)
		}
		t.result = result
		tools = append(tools, t)
	}
	if len(tools) == 0 {
		return nil
	}
	f := files[0]
	gf := g.plugin.NewGeneratedFile(path.Join(path.Dir(f.GeneratedFilenamePrefix), "tools.contract.go"), f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	protoMessage := gf.QualifiedGoIdent(protogen.GoIdent{GoName: "Message", GoImportPath: "google.golang.org/protobuf/proto"})
	gf.P("// ToolInfo describes one tool of the catalog, generated from its")
	gf.P("// (cad.engine.v1.tool) option and its args and result messages.")
	gf.P("type ToolInfo struct {")
	gf.P("// Name is the tool's wire name.")
	gf.P("Name string")
	gf.P("// Description is a sentence or two for the catalog.")
	gf.P("Description string")
	gf.P("// Keywords are the words people use for what the tool does (AutoCAD")
	gf.P("// command names and aliases, everyday phrases, a few German, French and")
	gf.P("// Spanish words), lower case, for tool_search.")
	gf.P("Keywords []string")
	gf.P("// Lean marks the tools most drafting needs, which MCP's lean profile")
	gf.P("// lists.")
	gf.P("Lean bool")
	gf.P("// Annotations are the tool's behaviour hints.")
	gf.P("Annotations *ToolAnnotations")
	gf.P("// Args is a typed nil of the arguments message.")
	gf.P("Args ", protoMessage)
	gf.P("// Result is a typed nil of the result message.")
	gf.P("Result ", protoMessage)
	gf.P("// InputSchema is the JSON Schema of the arguments.")
	gf.P("InputSchema string")
	gf.P("// OutputSchema is the JSON Schema of the result.")
	gf.P("OutputSchema string")
	gf.P("}")
	gf.P()
	gf.P("// Tool names.")
	gf.P("const (")
	for _, t := range tools {
		gf.P("Tool", goName(t.name), " = ", fmt.Sprintf("%q", t.name))
	}
	gf.P(")")
	gf.P()
	gf.P("// Tools is the tool catalog, in declaration order.")
	gf.P("var Tools = []ToolInfo{")
	for _, t := range tools {
		in, err := schemaString(document(g.opts, t.args.Desc, nil))
		if err != nil {
			return err
		}
		out, err := schemaString(document(g.opts, t.result.Desc, nil))
		if err != nil {
			return err
		}
		var ann []string
		for _, a := range t.annotations {
			ann = append(ann, goName(a)+": true")
		}
		gf.P("{")
		gf.P("Name: Tool", goName(t.name), ",")
		gf.P("Description: ", fmt.Sprintf("%q", t.description), ",")
		if len(t.keywords) > 0 {
			var kw []string
			for _, k := range t.keywords {
				kw = append(kw, fmt.Sprintf("%q", k))
			}
			gf.P("Keywords: []string{", strings.Join(kw, ", "), "},")
		}
		if t.lean {
			gf.P("Lean: true,")
		}
		gf.P("Annotations: &ToolAnnotations{", strings.Join(ann, ", "), "},")
		gf.P("Args: (*", gf.QualifiedGoIdent(t.args.GoIdent), ")(nil),")
		gf.P("Result: (*", gf.QualifiedGoIdent(t.result.GoIdent), ")(nil),")
		gf.P("InputSchema: ", goString(in), ",")
		gf.P("OutputSchema: ", goString(out), ",")
		gf.P("},")
	}
	gf.P("}")
	gf.P()
	gf.Import(protogen.GoImportPath("embed"))
	gf.P("// OpenAPI is the OpenAPI v2 document of EngineService's REST mapping,")
	gf.P("// written next to this file by protoc-gen-openapiv2 (see buf.gen.yaml).")
	gf.P("//")
	gf.P("//go:embed openapi.swagger.json")
	gf.P("var OpenAPI []byte")
	return nil
}

// messagesOf lists the top-level messages of files, in order.
func messagesOf(files []*protogen.File) []*protogen.Message {
	var ms []*protogen.Message
	for _, f := range files {
		ms = append(ms, f.Messages...)
	}
	return ms
}
