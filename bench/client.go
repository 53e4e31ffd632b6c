package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// Client is a JSON-RPC client of the gateway over WebSocket.
type Client struct {
	conn *jsonrpc.Conn
}

// Dial connects to the gateway at addr (host:port); handler serves the
// gateway's server requests (nil answers -32601).
func Dial(ctx context.Context, addr string, handler jsonrpc.Handler) (*Client, error) {
	return DialConn(ctx, addr, jsonrpc.ConnOptions{Handler: handler})
}

// DialConn is Dial with every option of the JSON-RPC connection.
func DialConn(ctx context.Context, addr string, opts jsonrpc.ConnOptions) (*Client, error) {
	ws, _, err := wsstream.Dial(ctx, "ws://"+addr+"/rpc", wsstream.DialOptions{ReadLimit: 64 << 20})
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &Client{conn: jsonrpc.NewConn(context.Background(), ws, opts)}, nil
}

// Call calls method and decodes the result into result (when not nil).
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if err := c.conn.Call(ctx, jsonrpc.ID{}, method, params, &raw); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// CallRaw calls method and returns the result as it came.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.conn.Call(ctx, jsonrpc.ID{}, method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }
