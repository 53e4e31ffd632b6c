package contractgen

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Full names of the enums the reason table joins.
const (
	errorReasonEnum = "cad.engine.v1.ErrorReason"
	errorCodeEnum   = "cad.gateway.v1.ErrorCode"
)

// reason is one ErrorReason value and its (cad.engine.v1.reason) option.
type reason struct {
	value          *protogen.EnumValue
	grpcCode       codes.Code
	jsonrpcCode    protoreflect.EnumValueDescriptor // of cad.gateway.v1.ErrorCode
	defaultForCode bool
}

// declaredReasons reads the option of every ErrorReason value. It refuses
// a value other than UNSPECIFIED without the option, the option on
// UNSPECIFIED, a grpc_code that is OK or not a gRPC code, a jsonrpc_code
// that is not a value of cad.gateway.v1.ErrorCode (or is its UNSPECIFIED),
// and two defaults for one gRPC code.
func (g *generator) declaredReasons(e *protogen.Enum, files []protoreflect.FileDescriptor) ([]reason, error) {
	errorCodes := findEnum(files, errorCodeEnum)
	if errorCodes == nil {
		return nil, fmt.Errorf("%s: %s is not in the request, so jsonrpc_code cannot be checked", errorReasonEnum, errorCodeEnum)
	}
	var reasons []reason
	defaults := map[codes.Code]protoreflect.Name{}
	for _, v := range e.Values {
		opt := g.opts.get(v.Desc, reasonOption)
		if v.Desc.Number() == 0 {
			if opt != nil {
				return nil, fmt.Errorf("%s: the unspecified value cannot have a (%s) option", v.Desc.Name(), reasonOption)
			}
			continue
		}
		if opt == nil {
			return nil, fmt.Errorf("%s: no (%s) option says its gRPC and JSON-RPC codes", v.Desc.Name(), reasonOption)
		}
		grpcCode := codes.Code(enumNumber(opt, "grpc_code"))
		if grpcCode == codes.OK || grpcCode > codes.Unauthenticated {
			return nil, fmt.Errorf("%s: grpc_code %d is not an error code of gRPC", v.Desc.Name(), grpcCode)
		}
		n := integer(opt, "jsonrpc_code")
		jsonrpcCode := errorCodes.Values().ByNumber(protoreflect.EnumNumber(n))
		if n == 0 || jsonrpcCode == nil {
			return nil, fmt.Errorf("%s: jsonrpc_code %d is not a value of %s", v.Desc.Name(), n, errorCodeEnum)
		}
		r := reason{value: v, grpcCode: grpcCode, jsonrpcCode: jsonrpcCode, defaultForCode: boolean(opt, "default_for_code")}
		if r.defaultForCode {
			if other, dup := defaults[grpcCode]; dup {
				return nil, fmt.Errorf("%s: %s is the default of gRPC code %s already", v.Desc.Name(), other, grpcCode)
			}
			defaults[grpcCode] = v.Desc.Name()
		}
		reasons = append(reasons, r)
	}
	return reasons, nil
}

// reasonTable writes the Go table of the error reasons of a file that
// declares cad.engine.v1.ErrorReason.
func (g *generator) reasonTable(f *protogen.File, files []protoreflect.FileDescriptor) error {
	var e *protogen.Enum
	for _, en := range f.Enums {
		if en.Desc.FullName() == errorReasonEnum {
			e = en
		}
	}
	if e == nil {
		return nil
	}
	reasons, err := g.declaredReasons(e, files)
	if err != nil {
		return err
	}
	gf := g.plugin.NewGeneratedFile(f.GeneratedFilenamePrefix+".contract.go", f.GoImportPath)
	gf.P(header)
	gf.P("package ", f.GoPackageName)
	gf.P()
	code := func(c codes.Code) string {
		return gf.QualifiedGoIdent(protogen.GoIdent{GoName: c.String(), GoImportPath: "google.golang.org/grpc/codes"})
	}
	codeType := gf.QualifiedGoIdent(protogen.GoIdent{GoName: "Code", GoImportPath: "google.golang.org/grpc/codes"})
	gf.P("// ReasonInfo is how one ErrorReason crosses the gRPC and JSON-RPC")
	gf.P("// boundaries, generated from its (cad.engine.v1.reason) option.")
	gf.P("type ReasonInfo struct {")
	gf.P("// Reason is the reason.")
	gf.P("Reason ", e.GoIdent.GoName)
	gf.P("// GRPCCode is the status code the engine returns with the reason.")
	gf.P("GRPCCode ", codeType)
	gf.P("// JSONRPCCode is the JSON-RPC error code the gateway answers with: a")
	gf.P("// value of cad.gateway.v1.ErrorCode.")
	gf.P("JSONRPCCode int32")
	gf.P("// DefaultForCode is true when a status of GRPCCode that carries no")
	gf.P("// google.rpc.ErrorInfo is taken as this reason.")
	gf.P("DefaultForCode bool")
	gf.P("}")
	gf.P()
	gf.P("// Reasons is every ErrorReason but UNSPECIFIED, in declaration order.")
	gf.P("var Reasons = []ReasonInfo{")
	for _, r := range reasons {
		def := ""
		if r.defaultForCode {
			def = ", DefaultForCode: true"
		}
		gf.P("{Reason: ", r.value.GoIdent.GoName, ", GRPCCode: ", code(r.grpcCode), ", JSONRPCCode: ", r.jsonrpcCode.Number(), def, "}, // ", r.jsonrpcCode.Name())
	}
	gf.P("}")
	gf.P()
	gf.P("// LookupReason is how r crosses the boundaries; ok is false for")
	gf.P("// UNSPECIFIED and numbers that are not a reason.")
	gf.P("func LookupReason(r ", e.GoIdent.GoName, ") (info ReasonInfo, ok bool) {")
	gf.P("for _, ri := range Reasons {")
	gf.P("if ri.Reason == r {")
	gf.P("return ri, true")
	gf.P("}")
	gf.P("}")
	gf.P("return ReasonInfo{}, false")
	gf.P("}")
	gf.P()
	gf.P("// DefaultReason is the reason a status of code c without a")
	gf.P("// google.rpc.ErrorInfo is taken as; ok is false when c has none.")
	gf.P("func DefaultReason(c ", codeType, ") (info ReasonInfo, ok bool) {")
	gf.P("for _, ri := range Reasons {")
	gf.P("if ri.GRPCCode == c && ri.DefaultForCode {")
	gf.P("return ri, true")
	gf.P("}")
	gf.P("}")
	gf.P("return ReasonInfo{}, false")
	gf.P("}")
	return nil
}
