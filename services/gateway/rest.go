package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
		runtime.WithMetadata(func(ctx context.Context, r *http.Request) metadata.MD {
			principal, _ := r.Context().Value(principalKey{}).(string)
			return metadata.Pairs(PrincipalHeader, principal)
		}),
	)
	if err := enginev1.RegisterEngineServiceHandlerClient(ctx, mux, gw.engine); err != nil {
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
	parsed, err := contract.ParseJSON(data)
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return contract.DecodePartial(parsed, m)
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
