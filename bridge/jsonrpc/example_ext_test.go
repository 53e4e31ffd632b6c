package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// This example connects a client and a server over an in-memory pipe. The
// server's handler calls back into the client before answering.
func ExampleNewConn() {
	ctx := context.Background()
	a, b := net.Pipe()

	var server *jsonrpc.Conn
	server = jsonrpc.NewConn(ctx, jsonrpc.NewLineStream(a, a, jsonrpc.LineStreamOptions{}), jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "sum" {
				return nil, jsonrpc.ErrNotHandled
			}
			var terms []int
			if err := json.Unmarshal(req.Params, &terms); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
			}
			// Ask the client for one more term: a server-to-client request.
			var extra int
			if err := server.Call(ctx, jsonrpc.StringID("srq-1"), "extra", nil, &extra); err != nil {
				return nil, err
			}
			sum := extra
			for _, t := range terms {
				sum += t
			}
			return sum, nil
		}),
	})
	defer server.Close()

	client := jsonrpc.NewConn(ctx, jsonrpc.NewLineStream(b, b, jsonrpc.LineStreamOptions{}), jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return 100, nil // the answer to "extra"
		}),
	})
	defer client.Close()

	var sum int
	if err := client.Call(ctx, jsonrpc.Int64ID(1), "sum", []int{1, 2, 3}, &sum); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum)
	fmt.Println(client.Call(ctx, jsonrpc.Int64ID(2), "product", []int{1, 2}, nil))
	// Output:
	// 106
	// jsonrpc error -32601: method not found: "product"
}

// This example serves a batch, as from the body of an HTTP POST: the
// notification gets no response.
func ExampleServePayload() {
	upper := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var args []string
		if err := json.Unmarshal(req.Params, &args); err != nil || len(args) != 1 {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "want one string")
		}
		return strings.ToUpper(args[0]), nil
	})
	payload := `[
		{"jsonrpc":"2.0","id":1,"method":"upper","params":["a"]},
		{"jsonrpc":"2.0","method":"upper","params":["ignored"]},
		{"jsonrpc":"2.0","id":2,"method":"upper","params":[]}
	]`
	fmt.Println(string(jsonrpc.ServePayload(context.Background(), []byte(payload), upper, 0)))
	// Output:
	// [{"jsonrpc":"2.0","id":1,"result":"A"},{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"want one string"}}]
}
