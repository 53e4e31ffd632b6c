package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// Runaway work through the built binaries: an engine whose expansion
// limit lets a 2 KB drawing of 10^10 lines be drawn, so that its export
// runs until something stops it. A client that goes away or cancels
// stops it, over every transport, and SIGTERM ends the process within the
// drain timeout.

// runaway starts an engine (drain timeout drain) and a gateway, and
// imports the nested bomb; it returns both and the document.
func runaway(t *testing.T, drain string) (engine, gateway *proctest.Process, doc string) {
	t.Helper()
	engine = proctest.StartEngine(t, "127.0.0.1:0", "memory:", "--expansion-limit", "1000000000000000000", "--drain-timeout", drain)
	gateway = proctest.StartGateway(t, "127.0.0.1:0", engine.Addr)
	var info struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, &httpClient{url: "http://" + gateway.Addr + "/rpc"}, 1, "document.import",
		map[string]any{"name": "bomb", "format": "dxf", "content": dxftest.NestedBomb(10, 10)}, &info)
	return engine, gateway, info.DocumentID
}

func TestRunawayStopsWhenTheClientGoes(t *testing.T) {
	engine, gateway, doc := runaway(t, "10s")
	export := map[string]any{"document_id": doc, "tool": "document_export", "args": map[string]any{"format": "svg"}}

	t.Run("POST, disconnected", func(t *testing.T) {
		engine.WaitIdle(t, 10*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools.call", "params": export})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+gateway.Addr+"/rpc", bytes.NewReader(body))
		done := make(chan struct{})
		go func() {
			defer close(done)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		engine.Busy(t)
		cancel()
		stopped := time.Now()
		<-done
		engine.IdleWithinASecond(t, stopped)
	})

	t.Run("WebSocket, $/cancelRequest", func(t *testing.T) {
		engine.WaitIdle(t, 10*time.Second)
		c := dialWebSocket(t, gateway.Addr)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools.call", "params": export})
		if err := c.ws.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
		engine.Busy(t)
		if err := c.ws.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)); err != nil {
			t.Fatal(err)
		}
		stopped := time.Now()
		for {
			data, err := c.ws.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to the cancelled call: %v", err)
			}
			var resp response
			json.Unmarshal(data, &resp)
			if string(resp.ID) == "7" {
				if resp.Error == nil || resp.Error.Code != -32800 {
					t.Errorf("the cancelled call answered %s, want error -32800", data)
				}
				break
			}
		}
		engine.IdleWithinASecond(t, stopped)
	})

	// A client that drops its connection (no close handshake). One that
	// closes it cleanly ends its input, and its calls get the drain
	// timeout to answer before they are cancelled (see gateway's EOFGrace).
	t.Run("WebSocket, dropped", func(t *testing.T) {
		engine.WaitIdle(t, 10*time.Second)
		c := dialWebSocket(t, gateway.Addr)
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools.call", "params": export})
		if err := c.ws.Write(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		engine.Busy(t)
		c.ws.Conn().CloseNow()
		engine.IdleWithinASecond(t, time.Now())
	})

	t.Run("gRPC, cancelled", func(t *testing.T) {
		engine.WaitIdle(t, 10*time.Second)
		conn, err := grpc.NewClient(engine.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := enginev1.NewEngineServiceClient(conn).ExportDocument(ctx, &enginev1.ExportDocumentRequest{DocumentId: doc, Format: enginev1.ExportFormat_EXPORT_FORMAT_PNG})
			errc <- err
		}()
		engine.Busy(t)
		cancel()
		stopped := time.Now()
		if err := <-errc; err == nil {
			t.Error("the cancelled ExportDocument succeeded")
		}
		engine.IdleWithinASecond(t, stopped)
	})
}

// TestRunawaySIGTERM: an engine asked to stop while a runaway export runs
// waits the drain timeout, then cancels the export and exits.
func TestRunawaySIGTERM(t *testing.T) {
	const drain = time.Second
	engine, gateway, doc := runaway(t, drain.String())
	c := dialWebSocket(t, gateway.Addr)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools.call",
		"params": map[string]any{"document_id": doc, "tool": "document_export", "args": map[string]any{"format": "png"}}})
	if err := c.ws.Write(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	engine.Busy(t)
	if err := engine.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- engine.Wait() }()
	// The drain timeout, and two seconds for the process to wind down.
	select {
	case <-exited:
		t.Logf("the engine exited %v after SIGTERM (drain timeout %v)", time.Since(signalled).Round(time.Millisecond), drain)
	case <-time.After(drain + 2*time.Second):
		t.Fatalf("the engine had not exited %v after SIGTERM, with a drain timeout of %v", drain+2*time.Second, drain)
	}
}
