// Command protoc-gen-cadcontract is the protoc plugin that generates
// cadbridge's contract artifacts (tool table, JSON-RPC method table, JSON
// Schemas, OpenRPC document); see internal/contractgen.
package main

import (
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/cadbridge/cadbridge/internal/contractgen"
)

func main() {
	protogen.Options{}.Run(func(p *protogen.Plugin) error {
		p.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL)
		return contractgen.Generate(p)
	})
}
