package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// loopbackOrigins are allowed besides the gateway's own host.
var loopbackOrigins = []string{"localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*", "[::1]", "[::1]:*"}

func (gw *Gateway) serveWebSocket(w http.ResponseWriter, r *http.Request, principal string) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: loopbackOrigins})
	if err != nil {
		gw.log.Debug("websocket accept", "error", err)
		return // Accept has answered (403 for a foreign Origin)
	}
	c.SetReadLimit(gw.cfg.ReadLimit)
	stream := &wsStream{c: c, writeTimeout: gw.cfg.WriteTimeout}
	if err := gw.serveConn(r.Context(), stream, principal); err != nil {
		gw.log.Debug("websocket connection ended", "error", err)
	}
	c.Close(websocket.StatusNormalClosure, "")
}

// wsStream carries one JSON-RPC payload per WebSocket text message.
type wsStream struct {
	c            *websocket.Conn
	writeTimeout time.Duration
}

func (s *wsStream) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := s.c.Read(ctx)
	if err != nil {
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure || websocket.CloseStatus(err) == websocket.StatusGoingAway {
			return nil, io.EOF
		}
		return nil, err
	}
	if typ != websocket.MessageText {
		return nil, errors.New("binary WebSocket messages are not JSON-RPC")
	}
	return data, nil
}

func (s *wsStream) Write(ctx context.Context, payload []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageText, payload); err != nil {
		return fmt.Errorf("websocket write: %w", err)
	}
	return nil
}

func (s *wsStream) Close() error {
	return s.c.Close(websocket.StatusNormalClosure, "")
}

// servePost serves one JSON-RPC message or batch per HTTP request. No server
// requests are possible here.
func (gw *Gateway) servePost(w http.ResponseWriter, r *http.Request, principal string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, gw.cfg.ReadLimit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":4013,"message":"message too large","data":{"limit":%d}}}`, gw.cfg.ReadLimit)
			return
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	cc := gw.newClientConn(principal)
	defer cc.close("request_done")
	resp := jsonrpc.ServePayload(r.Context(), body, cc, gw.cfg.MaxBatch)
	if resp == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
