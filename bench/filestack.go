package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/cadbridge/cadbridge/services/cadengine"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// fileLimit is the largest message a fileStack carries, in bytes, both at
// the gateway's edge and on gRPC between the services: the engine's own
// limit on an imported file (64 MiB). A 100k-line DXF file is about 11 MiB,
// more than the gateway's default read limit (1 MiB).
const fileLimit = 64 << 20

// fileStack is an engine on a SQLite store of its own, in a new directory,
// and a gateway in front of it, in process on loopback, as
// `cadbridge --read-limit` runs them: the stack of the DXF rows. (Stack
// keeps the services' default limits, which turn a DXF file of 11 MiB
// away.)
type fileStack struct {
	// Gateway is the gateway's HTTP address; HTTP is a client of it.
	Gateway string
	HTTP    *http.Client
	dir     string
	cancel  context.CancelFunc
	served  sync.WaitGroup
	gw      *gateway.Gateway
}

// startFileStack starts a fileStack whose SQLite file is in a new
// directory under e's --dir.
func startFileStack(e *env) (_ *fileStack, err error) {
	dir, err := e.tempDir("cadbench-files-")
	if err != nil {
		return nil, err
	}
	var lis [2]net.Listener
	defer func() {
		if err != nil {
			for _, l := range lis {
				if l != nil {
					l.Close()
				}
			}
			os.RemoveAll(dir)
		}
	}()
	for i := range lis {
		if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, err
		}
	}
	gw, err := gateway.New(gateway.Config{Listen: "127.0.0.1:0", Engine: lis[0].Addr().String(), ReadLimit: fileLimit, EngineMaxMessage: fileLimit})
	if err != nil {
		return nil, err
	}
	eng, err := cadengine.New(cadengine.Config{Store: "sqlite:" + filepath.Join(dir, "cadengine.db"), MaxMessage: fileLimit})
	if err != nil {
		gw.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &fileStack{Gateway: lis[1].Addr().String(), HTTP: &http.Client{Transport: &http.Transport{}}, dir: dir, cancel: cancel, gw: gw}
	s.served.Go(func() { eng.Serve(ctx, lis[0]) })
	s.served.Go(func() { gw.Serve(ctx, lis[1]) })
	return s, nil
}

// Close stops both services and removes the store's directory.
func (s *fileStack) Close() {
	s.HTTP.CloseIdleConnections()
	s.cancel()
	s.served.Wait()
	s.gw.Close()
	os.RemoveAll(s.dir)
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

// call POSTs a JSON-RPC request (body, marshalled once by the caller) to
// the gateway's /rpc and returns its result; an error answer is a
// *rpcError.
func (s *fileStack) call(ctx context.Context, body []byte) (json.RawMessage, error) {
	data, err := postJSON(ctx, s.HTTP, "http://"+s.Gateway+"/rpc", nil, body)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("POST /rpc: %w", err)
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	if len(resp.Result) == 0 {
		return nil, errors.New("POST /rpc: an answer with neither result nor error")
	}
	return resp.Result, nil
}

// rpcRequest is the JSON of a JSON-RPC request of method with params.
func rpcRequest(method string, params obj) []byte {
	return mustJSON(obj{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}
