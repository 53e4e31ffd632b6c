package gateway

import (
	"net/url"
	"strconv"
	"strings"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"io"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// restHandler serves the engine's unary RPCs as REST under /v1/ through
// grpc-gateway. Bodies use the same wire JSON as JSON-RPC (see package
// contract) and, unlike grpc-gateway's default, an unknown field is an
// error: 400 with a google.rpc.Status naming the field.
func (gw *Gateway) restHandler(ctx context.Context) (http.Handler, error) {
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, wireMarshaler{}),
		runtime.SetQueryParameterParser(queryParser{}),
		runtime.WithMetadata(func(ctx context.Context, r *http.Request) metadata.MD {
			principal, _ := r.Context().Value(principalKey{}).(string)
			return metadata.Pairs(PrincipalHeader, principal)
		}),
	)
	if err := enginev1.RegisterEngineServiceHandlerClient(ctx, mux, enginev1.NewEngineServiceClient(routedConn{gw.engines})); err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	return mux, nil
}

// PrincipalHeader is the gRPC metadata key that carries the authenticated
// principal of a REST request to the engine.
const PrincipalHeader = "x-cadbridge-principal"

// principalKey is the request context key of the authenticated principal.
type principalKey struct{}

// wireMarshaler is a runtime.Marshaler over package contract's codec.
type wireMarshaler struct{}

func (wireMarshaler) ContentType(any) string { return "application/json" }

func (wireMarshaler) Marshal(v any) ([]byte, error) {
	if m, ok := v.(proto.Message); ok {
		return contract.Marshal(m)
	}
	return json.Marshal(v)
}

func (wireMarshaler) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return json.Unmarshal(data, v)
	}
	// Decoded in one pass, as tools.call's params are; a body that is
	// not JSON is a violation at the root, as on JSON-RPC.
	return contract.UnmarshalPartial(data, m)
}

func (w wireMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			data = []byte("{}")
		}
		return w.Unmarshal(data, v)
	})
}

func (w wireMarshaler) NewEncoder(out io.Writer) runtime.Encoder {
	return runtime.EncoderFunc(func(v any) error {
		data, err := w.Marshal(v)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	})
}

// queryParser sets a REST request's query parameters on the fields of
// the request, by their proto names (a dotted path into a message field:
// options.paper=a4), with the wire's enum names (format=svg) and, unlike
// grpc-gateway's default, refuses a parameter the request does not have.
type queryParser struct{}

func (queryParser) Parse(msg proto.Message, values url.Values, filter *utilities.DoubleArray) error {
	for key, vals := range values {
		m := msg.ProtoReflect()
		names := strings.Split(key, ".")
		var fd protoreflect.FieldDescriptor
		for i, name := range names {
			fd = m.Descriptor().Fields().ByName(protoreflect.Name(name))
			if i == len(names)-1 || fd == nil || fd.IsList() || fd.IsMap() || fd.Kind() != protoreflect.MessageKind {
				break
			}
			m = m.Mutable(fd).Message()
		}
		if fd == nil || fd.IsList() || fd.IsMap() || fd.Kind() == protoreflect.MessageKind || string(fd.Name()) != names[len(names)-1] {
			return status.Errorf(codes.InvalidArgument, "unknown query parameter %q", key)
		}
		if len(vals) != 1 {
			return status.Errorf(codes.InvalidArgument, "query parameter %q given %d times", key, len(vals))
		}
		v, err := scalar(fd, vals[0])
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "query parameter %q: %v", key, err)
		}
		m.Set(fd, v)
	}
	return nil
}

// scalar parses a query value for a scalar field.
func scalar(fd protoreflect.FieldDescriptor, s string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BoolKind:
		b, err := strconv.ParseBool(s)
		return protoreflect.ValueOfBool(b), err
	case protoreflect.EnumKind:
		values := fd.Enum().Values()
		for i := 0; i < values.Len(); i++ {
			if ev := values.Get(i); ev.Number() != 0 && contract.EnumName(ev) == s {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
		}
		return protoreflect.Value{}, fmt.Errorf("%q is not a %s", s, fd.Enum().Name())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		i, err := strconv.ParseInt(s, 10, 32)
		return protoreflect.ValueOfInt32(int32(i)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		i, err := strconv.ParseInt(s, 10, 64)
		return protoreflect.ValueOfInt64(i), err
	case protoreflect.DoubleKind:
		f, err := strconv.ParseFloat(s, 64)
		return protoreflect.ValueOfFloat64(f), err
	default:
		return protoreflect.Value{}, fmt.Errorf("unsupported field type %s", fd.Kind())
	}
}
