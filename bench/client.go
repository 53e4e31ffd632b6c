package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// Client is a JSON-RPC client of the gateway over WebSocket.
type Client struct {
	ws   *websocket.Conn
	conn *jsonrpc.Conn
}

// Dial connects to the gateway at addr (host:port); handler serves the
// gateway's server requests (nil answers -32601).
func Dial(ctx context.Context, addr string, handler jsonrpc.Handler) (*Client, error) {
	return DialConn(ctx, addr, jsonrpc.ConnOptions{Handler: handler})
}

// DialConn is Dial with every option of the JSON-RPC connection.
func DialConn(ctx context.Context, addr string, opts jsonrpc.ConnOptions) (*Client, error) {
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/rpc", nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	ws.SetReadLimit(64 << 20)
	conn := jsonrpc.NewConn(context.Background(), wsStream{ws}, opts)
	return &Client{ws: ws, conn: conn}, nil
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

type wsStream struct{ c *websocket.Conn }

func (s wsStream) Read(ctx context.Context) ([]byte, error) {
	_, data, err := s.c.Read(ctx)
	if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
		return nil, io.EOF
	}
	return data, err
}

func (s wsStream) Write(ctx context.Context, payload []byte) error {
	return s.c.Write(ctx, websocket.MessageText, payload)
}

func (s wsStream) Close() error {
	return s.c.Close(websocket.StatusNormalClosure, "")
}
