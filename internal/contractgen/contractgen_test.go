package contractgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/contractgen"
)

// request builds the CodeGeneratorRequest buf would send for cadbridge's
// protos, from the descriptors compiled into the generated packages.
func request(t *testing.T) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	_ = enginev1.File_cad_engine_v1_engine_proto
	_ = gatewayv1.File_cad_gateway_v1_methods_proto
	req := &pluginpb.CodeGeneratorRequest{Parameter: proto.String("paths=source_relative")}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			add(imports.Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(fd))
	}
	var ours []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if strings.HasPrefix(fd.Path(), "cad/") {
			ours = append(ours, fd.Path())
		}
		return true
	})
	for _, path := range ours {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			t.Fatal(err)
		}
		add(fd)
		req.FileToGenerate = append(req.FileToGenerate, path)
	}
	return req
}

// TestGeneratedFilesAreFresh regenerates the contract files in memory and
// compares them with gen/: the method table, schemas and OpenRPC document
// the gateway serves are exactly what the generator makes of the protos.
func TestGeneratedFilesAreFresh(t *testing.T) {
	p, err := protogen.Options{}.New(request(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := contractgen.Generate(p); err != nil {
		t.Fatal(err)
	}
	resp := p.Response()
	if resp.GetError() != "" {
		t.Fatal(resp.GetError())
	}
	want := map[string]bool{
		"cad/engine/v1/tools.contract.go":    true,
		"cad/engine/v1/api.contract.go":      true,
		"cad/engine/v1/options.contract.go":  true,
		"cad/gateway/v1/methods.contract.go": true,
		"cad/gateway/v1/openrpc.json":        true,
	}
	for _, f := range resp.GetFile() {
		delete(want, f.GetName())
		committed, err := os.ReadFile(filepath.Join("..", "..", "gen", f.GetName()))
		if err != nil {
			t.Fatal(err)
		}
		if string(committed) != f.GetContent() {
			t.Errorf("gen/%s differs from a fresh generation; run scripts/generate.sh", f.GetName())
		}
	}
	for name := range want {
		t.Errorf("generator did not write %s", name)
	}
	if got, committed := string(gatewayv1.OpenRPC), mustRead(t, "../../gen/cad/gateway/v1/openrpc.json"); got != committed {
		t.Errorf("gatewayv1.OpenRPC differs from gen/cad/gateway/v1/openrpc.json")
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGenerateRejectsToolWithoutResult checks the generator refuses a tool
// declaration whose result message does not exist.
func TestGenerateRejectsToolWithoutResult(t *testing.T) {
	req := request(t)
	for _, f := range req.ProtoFile {
		if f.GetName() != "cad/engine/v1/tools.proto" {
			continue
		}
		var kept []*descriptorpb.DescriptorProto
		for _, m := range f.MessageType {
			if m.GetName() != "EntityCreateLineResult" {
				kept = append(kept, m)
			}
		}
		f.MessageType = kept
	}
	p, err := protogen.Options{}.New(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := contractgen.Generate(p); err == nil || !strings.Contains(err.Error(), "entity_create_line") {
		t.Errorf("Generate without EntityCreateLineResult = %v, want an error naming entity_create_line", err)
	}
}

// TestGenerateRejectsBadDeclarations checks the generator refuses value
// domains and error reasons that are declared wrong, naming what is wrong.
func TestGenerateRejectsBadDeclarations(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(t *testing.T, req *pluginpb.CodeGeneratorRequest)
		wantErr string
	}{
		{"a string field with an integer domain", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			fd := findField(t, req, "cad/engine/v1/tools.proto", "EntityCreatePointArgs", "linetype")
			proto.SetExtension(fd.Options, enginev1.E_Rules, &enginev1.FieldRules{Domain: enginev1.ValueDomain_VALUE_DOMAIN_LINEWEIGHT})
		}, "EntityCreatePointArgs.linetype: domain VALUE_DOMAIN_LINEWEIGHT has integers"},
		{"an integer field with a domain of names", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			fd := findField(t, req, "cad/engine/v1/tools.proto", "LayerCreateArgs", "lineweight")
			proto.SetExtension(fd.Options, enginev1.E_Rules, &enginev1.FieldRules{Domain: enginev1.ValueDomain_VALUE_DOMAIN_LAYER_LINETYPE})
		}, "LayerCreateArgs.lineweight: domain VALUE_DOMAIN_LAYER_LINETYPE has names"},
		{"a domain and a pattern", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			fd := findField(t, req, "cad/engine/v1/tools.proto", "LayerCreateArgs", "linetype")
			proto.SetExtension(fd.Options, enginev1.E_Rules, &enginev1.FieldRules{Domain: enginev1.ValueDomain_VALUE_DOMAIN_LAYER_LINETYPE, Pattern: "^x$"})
		}, "cannot have a pattern too"},
		{"a domain without members", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/options.proto", "ValueDomain", "VALUE_DOMAIN_LINEWEIGHT")
			proto.ClearExtension(ev.Options, enginev1.E_Domain)
		}, "VALUE_DOMAIN_LINEWEIGHT: no (cad.engine.v1.domain) option"},
		{"a domain with names and integers", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/options.proto", "ValueDomain", "VALUE_DOMAIN_LINEWEIGHT")
			proto.SetExtension(ev.Options, enginev1.E_Domain, &enginev1.DomainValues{Names: []string{"a"}, Integers: []int64{1}})
		}, "VALUE_DOMAIN_LINEWEIGHT: give names or integers"},
		{"names that repeat ignoring case", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/options.proto", "ValueDomain", "VALUE_DOMAIN_LAYER_LINETYPE")
			proto.SetExtension(ev.Options, enginev1.E_Domain, &enginev1.DomainValues{Names: []string{"DOT", "Dot"}})
		}, `name "Dot" repeats another`},
		{"a reason without codes", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/api.proto", "ErrorReason", "ERROR_REASON_FORBIDDEN")
			proto.ClearExtension(ev.Options, enginev1.E_Reason)
		}, "ERROR_REASON_FORBIDDEN: no (cad.engine.v1.reason) option"},
		{"a JSON-RPC code that is not an ErrorCode", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/api.proto", "ErrorReason", "ERROR_REASON_FORBIDDEN")
			proto.SetExtension(ev.Options, enginev1.E_Reason, &enginev1.ReasonOptions{GrpcCode: code.Code_PERMISSION_DENIED, JsonrpcCode: 4242})
		}, "ERROR_REASON_FORBIDDEN: jsonrpc_code 4242 is not a value of cad.gateway.v1.ErrorCode"},
		{"the OK gRPC code", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/api.proto", "ErrorReason", "ERROR_REASON_FORBIDDEN")
			proto.SetExtension(ev.Options, enginev1.E_Reason, &enginev1.ReasonOptions{GrpcCode: code.Code_OK, JsonrpcCode: 4003})
		}, "ERROR_REASON_FORBIDDEN: grpc_code 0 is not an error code"},
		{"two defaults for one gRPC code", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/api.proto", "ErrorReason", "ERROR_REASON_SESSION_NOT_FOUND")
			proto.SetExtension(ev.Options, enginev1.E_Reason, &enginev1.ReasonOptions{GrpcCode: code.Code_NOT_FOUND, JsonrpcCode: 4001, DefaultForCode: true})
		}, "ERROR_REASON_SESSION_NOT_FOUND: ERROR_REASON_DOCUMENT_NOT_FOUND is the default of gRPC code NotFound already"},
		{"codes on UNSPECIFIED", func(t *testing.T, req *pluginpb.CodeGeneratorRequest) {
			ev := findEnumValue(t, req, "cad/engine/v1/api.proto", "ErrorReason", "ERROR_REASON_UNSPECIFIED")
			proto.SetExtension(ev.Options, enginev1.E_Reason, &enginev1.ReasonOptions{GrpcCode: code.Code_INTERNAL, JsonrpcCode: -32603})
		}, "ERROR_REASON_UNSPECIFIED: the unspecified value cannot have"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request(t)
			tc.mutate(t, req)
			p, err := protogen.Options{}.New(req)
			if err != nil {
				t.Fatal(err)
			}
			if err := contractgen.Generate(p); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Generate with %s = %v, want an error containing %q", tc.name, err, tc.wantErr)
			}
		})
	}
}

func findFile(t *testing.T, req *pluginpb.CodeGeneratorRequest, name string) *descriptorpb.FileDescriptorProto {
	t.Helper()
	for _, f := range req.ProtoFile {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("the request has no %s", name)
	return nil
}

// findField is a field of a top-level message, with options to change.
func findField(t *testing.T, req *pluginpb.CodeGeneratorRequest, file, message, field string) *descriptorpb.FieldDescriptorProto {
	t.Helper()
	for _, m := range findFile(t, req, file).MessageType {
		for _, fd := range m.Field {
			if m.GetName() == message && fd.GetName() == field {
				if fd.Options == nil {
					fd.Options = new(descriptorpb.FieldOptions)
				}
				return fd
			}
		}
	}
	t.Fatalf("%s has no %s.%s", file, message, field)
	return nil
}

// findEnumValue is a value of a top-level enum, with options to change.
func findEnumValue(t *testing.T, req *pluginpb.CodeGeneratorRequest, file, enum, value string) *descriptorpb.EnumValueDescriptorProto {
	t.Helper()
	for _, e := range findFile(t, req, file).EnumType {
		for _, ev := range e.Value {
			if e.GetName() == enum && ev.GetName() == value {
				if ev.Options == nil {
					ev.Options = new(descriptorpb.EnumValueOptions)
				}
				return ev
			}
		}
	}
	t.Fatalf("%s has no %s.%s", file, enum, value)
	return nil
}
