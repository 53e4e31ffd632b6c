package contractgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
