// Package gateway is cadbridge's JSON-RPC 2.0 edge. It serves WebSocket
// (GET /rpc), HTTP (POST /rpc) and stdio, validates every call against the
// contracts generated from proto/cad/gateway/v1, and relays each client
// connection's calls over one gRPC Session stream to the engine.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/grpclink"
	"github.com/cadbridge/cadbridge/internal/mtls"
	"github.com/cadbridge/cadbridge/internal/protocodec"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/gateway/viewer"
)

// version is reported by system.status.
const version = "0.1.0"

// localPrincipal is the principal of every caller when no tokens are
// configured (loopback-only open mode).
const localPrincipal = "local"

// DefaultMaxInFlight is Config.MaxInFlight's default: each call in flight
// may hold its answer beside its connection's byte budget while the
// client does not read it (see [connBudget]).
const DefaultMaxInFlight = 32

// Config configures a gateway.
type Config struct {
	// Listen is the HTTP address, for example "127.0.0.1:7400".
	Listen string
	// Engine is the engine's gRPC address, for example "127.0.0.1:7401",
	// or several separated by commas, the home engine first, for engines
	// that share a store (see engineSet).
	Engine string
	// EngineTLS is the gateway's client certificate and key and the CA
	// that signed the engine's certificate: with them the link to the
	// engine is mutual TLS, as an engine off loopback requires; without
	// them it is plaintext.
	EngineTLS mtls.Files
	// Tokens is a file of "TOKEN PRINCIPAL" lines; empty means open mode,
	// which serves loopback callers only, as principal "local".
	Tokens string
	// ReadLimit caps one WebSocket message or HTTP body; 0 means 1 MiB.
	ReadLimit int64
	// EngineMaxMessage caps one gRPC message to or from the engine, in
	// bytes; 0 means 16 MiB, as the engine's own limit.
	EngineMaxMessage int
	// MaxBatch caps a JSON-RPC batch array; 0 means 100.
	MaxBatch int
	// MaxInFlight caps the calls one connection may have running; more
	// answer 4029 (overloaded). 0 means DefaultMaxInFlight.
	MaxInFlight int
	// WriteTimeout bounds one write to a client; a slower reader is
	// disconnected. 0 means 10 s.
	WriteTimeout time.Duration
	// SendQueue is how many messages may wait for a slow WebSocket reader
	// before it is disconnected; 0 means 256.
	SendQueue int
	// ConnBudget bounds, in bytes, what one connection holds for its
	// client: calls read and not yet answered, and answers and events
	// queued and not yet written. Past it the gateway stops reading from
	// the connection; a client that then does not read within WriteTimeout
	// is dropped, which frees all of it. 0 means 4 MiB; negative, none.
	ConnBudget int64
	// MemoryBudget bounds, in bytes, what all connections together hold
	// for their clients: past it new calls are answered 4029 (overloaded).
	// 0 means 1 GiB; negative, none.
	MemoryBudget int64
	// PingInterval is how often a WebSocket is pinged; 0 means 30 s.
	PingInterval time.Duration
	// ParkAfter is how long a WebSocket's reader waits for a next message
	// before it parks: its goroutine ends, and one goroutine, waiting for
	// every parked connection, starts it again when the client sends
	// something. 0 means 1 s; negative, never.
	ParkAfter time.Duration
	// EngineKeepalive is how often the link to the engine is pinged when
	// idle; a ping unanswered for half as long again breaks it. 0 means
	// 10 s (gRPC's minimum).
	EngineKeepalive time.Duration
	// DrainTimeout bounds a graceful stop; 0 means 10 s.
	DrainTimeout time.Duration
	// Logger receives the gateway's logs; nil means slog.Default().
	Logger *slog.Logger
	// CheckContracts validates every result, event and server request the
	// gateway sends against its contract; a violation is answered -32603
	// and logged (tests turn it on).
	CheckContracts bool
	// Telemetry receives the gateway's traces and metrics; nil records
	// nothing.
	Telemetry *telemetry.Providers
	// Listening, if set, is called with the bound address once the gateway
	// accepts connections.
	Listening func(addr net.Addr)
	// Surfaces are served beside the gateway's own HTTP surface (the MCP
	// surface at /mcp); nil means none.
	Surfaces []Surface
}

// DefaultParkAfter is Config.ParkAfter's default.
const DefaultParkAfter = time.Second

// Surface is an HTTP surface the gateway serves beside its own, such as
// the MCP surface. It authenticates its callers with
// [Gateway.Authenticate] and reaches the engine through [Gateway.NewRelay].
// If it implements io.Closer, [Gateway.Close] closes it before the link to
// the engine.
type Surface interface {
	// Mount registers the surface's handlers on mux; it is called each
	// time the gateway's handler is built.
	Mount(gw *Gateway, mux *http.ServeMux) error
}

// Gateway serves the JSON-RPC edge.
type Gateway struct {
	cfg    Config
	log    *slog.Logger
	id     string
	routes *routes
	// serverMethods are the server requests, by wire method.
	serverMethods map[string]*serverMethod
	tokens        tokens
	engines       *engineSet // the links to engines (see routeCall)
	obs           *observability
	check         *checker // nil unless Config.CheckContracts

	connections atomic.Int64
	// memory counts the bytes all connections hold for their clients.
	memory memoryBudget
	// reclaim gives memory back to the operating system after
	// connections end.
	reclaim *reclaimer
	ready   atomic.Bool
	// draining is done when a graceful stop begins (startDrain):
	// long-lived connections finish their calls and close with "going
	// away".
	draining   context.Context
	startDrain context.CancelFunc
	conns      sync.WaitGroup // long-lived connections being served
}

// New connects (lazily) to the engine and builds the method table.
func New(cfg Config) (*Gateway, error) {
	if cfg.EngineMaxMessage == 0 {
		cfg.EngineMaxMessage = 16 << 20
	}
	if cfg.ReadLimit == 0 {
		cfg.ReadLimit = 1 << 20
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = 100
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.SendQueue == 0 {
		cfg.SendQueue = 256
	}
	if cfg.ConnBudget == 0 {
		cfg.ConnBudget = defaultConnBudget
	}
	if cfg.MemoryBudget == 0 {
		cfg.MemoryBudget = defaultMemoryBudget
	}
	if cfg.PingInterval == 0 {
		cfg.PingInterval = 30 * time.Second
	}
	if cfg.ParkAfter == 0 {
		cfg.ParkAfter = DefaultParkAfter
	}
	if cfg.DrainTimeout == 0 {
		cfg.DrainTimeout = 10 * time.Second
	}
	if cfg.EngineKeepalive == 0 {
		cfg.EngineKeepalive = 10 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var toks tokens
	if cfg.Tokens != "" {
		t, err := loadTokens(cfg.Tokens)
		if err != nil {
			return nil, err
		}
		toks = t
	} else if cfg.Listen != "" && !mtls.IsLoopback(cfg.Listen) {
		return nil, fmt.Errorf("listening on %s needs --tokens; without tokens the gateway serves loopback only", cfg.Listen)
	}
	rs, err := newRoutes()
	if err != nil {
		return nil, fmt.Errorf("method table: %w", err)
	}
	sms, err := newServerMethods()
	if err != nil {
		return nil, fmt.Errorf("server requests: %w", err)
	}
	var chk *checker
	if cfg.CheckContracts {
		if chk, err = newChecker(); err != nil {
			return nil, fmt.Errorf("contract checks: %w", err)
		}
	}
	obs, err := newObservability(cfg.Telemetry)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	creds := insecure.NewCredentials()
	if cfg.EngineTLS.Enabled() {
		tc, err := mtls.Client(cfg.EngineTLS, "--engine-tls-cert, --engine-tls-key and --engine-ca")
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(tc)
	}
	codec := protocodec.New()
	engines, err := newEngineSet(cfg.Engine, func(addr string) (*grpc.ClientConn, error) {
		return grpc.NewClient(addr, grpc.WithTransportCredentials(creds), grpc.WithStatsHandler(obs.providers.GRPCClientHandler()),
			// A link that stalls (no answer to pings) is declared dead, so
			// that waiting calls end 5003 instead of hanging.
			grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: cfg.EngineKeepalive, Timeout: cfg.EngineKeepalive / 2, PermitWithoutStream: true}),
			grpc.WithStaticStreamWindowSize(grpclink.StreamWindow), grpc.WithStaticConnWindowSize(grpclink.ConnWindow),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.EngineMaxMessage), grpc.MaxCallSendMsgSize(cfg.EngineMaxMessage), grpc.ForceCodecV2(codec)))
	})
	if err != nil {
		return nil, err
	}
	gw := &Gateway{
		cfg:           cfg,
		log:           log,
		id:            "gw-" + randomHex(6),
		routes:        rs,
		serverMethods: sms,
		tokens:        toks,
		engines:       engines,
		obs:           obs,
		check:         chk,
		reclaim:       newReclaimer(),
	}
	gw.draining, gw.startDrain = context.WithCancel(context.Background())
	gw.memory.limit = cfg.MemoryBudget
	gw.ready.Store(true)
	return gw, nil
}

// Close closes the surfaces that can be closed, then releases the engine
// connection.
func (gw *Gateway) Close() error {
	gw.reclaim.close()
	for _, s := range gw.cfg.Surfaces {
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
	return gw.engines.close()
}

func (gw *Gateway) status() *gatewayv1.GatewayStatus {
	return &gatewayv1.GatewayStatus{
		GatewayId:   gw.id,
		Version:     version,
		Connections: gw.connections.Load(),
		Ready:       gw.ready.Load(),
	}
}

// Handler is the gateway's HTTP surface; ctx bounds the REST mux's
// registration.
func (gw *Gateway) Handler(ctx context.Context) (http.Handler, error) {
	rest, err := gw.restHandler(ctx)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", gw.withAuth(func(w http.ResponseWriter, r *http.Request, principal string) {
		if gw.memory.over() {
			// As a call past the memory budget is answered 4029.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":8,"message":"overloaded: the gateway holds too much for its clients; retry later","details":[]}`)
			return
		}
		rest.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, principal)))
	}))
	mux.HandleFunc("GET /rpc", gw.withAuth(gw.serveWebSocket))
	mux.HandleFunc("POST /rpc", gw.withAuth(gw.servePost))
	mux.HandleFunc("GET /openrpc.json", serveJSON(gatewayv1.OpenRPC))
	mux.HandleFunc("GET /openapi.json", serveJSON(enginev1.OpenAPI))
	mux.Handle("GET "+viewer.Prefix, viewer.Handler())
	mux.Handle("GET /metrics", gw.obs.providers.Metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !gw.ready.Load() {
			http.Error(w, "draining", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	for _, s := range gw.cfg.Surfaces {
		if err := s.Mount(gw, mux); err != nil {
			return nil, err
		}
	}
	return mux, nil
}

func serveJSON(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}
}

// Serve serves HTTP on lis until ctx is cancelled, then drains: readiness
// goes false and in-flight requests get DrainTimeout to finish.
func (gw *Gateway) Serve(ctx context.Context, lis net.Listener) error {
	handler, err := gw.Handler(ctx)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// Requests outlive ctx: a stop drains them (see below) rather than
		// cutting them off.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnContext: connContext,
	}
	if gw.cfg.Listening != nil {
		gw.cfg.Listening(lis.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Readiness goes false; HTTP requests and WebSocket/stdio connections
	// get DrainTimeout to finish their calls. Sessions and their open
	// requests stay with the engine, for clients to resume elsewhere.
	gw.ready.Store(false)
	gw.startDrain()
	drain, cancel := context.WithTimeout(context.Background(), gw.cfg.DrainTimeout)
	defer cancel()
	err = srv.Shutdown(drain)
	done := make(chan struct{})
	go func() {
		gw.conns.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-drain.Done():
		gw.log.Warn("drain timed out; closing connections")
	}
	<-errc
	return err
}

// Run listens on cfg.Listen and serves until ctx is cancelled.
func Run(ctx context.Context, cfg Config) error {
	gw, err := New(cfg)
	if err != nil {
		return err
	}
	defer gw.Close()
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if err := gw.Serve(ctx, lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ServeStdio serves one JSON-RPC connection on r and w (newline-delimited)
// until the input ends or ctx is cancelled. At the end of the input it
// stops reading, finishes the calls already read (bounded by
// Config.DrainTimeout), writes their answers and returns nil.
func (gw *Gateway) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	defer gw.reclaim.connEnded()
	stream := jsonrpc.NewLineStream(r, w, jsonrpc.LineStreamOptions{MaxLineSize: int(gw.cfg.ReadLimit)})
	budget := gw.newConnBudget()
	defer budget.close()
	return gw.serveConn(ctx, stream, budget, localPrincipal, nil)
}

// finishCalls waits, up to the drain timeout, for the connection's calls to
// end; Close then cancels what is left.
func (gw *Gateway) finishCalls(rpc *jsonrpc.Conn) {
	done := make(chan struct{})
	go func() {
		rpc.Close() // waits for running handlers
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(gw.cfg.DrainTimeout):
	}
}

// serveConn serves one long-lived JSON-RPC connection until it ends (see
// [Gateway.startConn]).
func (gw *Gateway) serveConn(ctx context.Context, stream jsonrpc.Stream, budget *connBudget, principal string, headers http.Header) error {
	ended := make(chan error, 1)
	gw.startConn(ctx, stream, budget, principal, headers, func(err error) { ended <- err })
	return <-ended
}

// startConn starts serving one long-lived JSON-RPC connection, whose reads
// budget accounts for, and returns: no goroutine waits for the connection
// to end. headers are the HTTP headers of the connection's upgrade, nil
// for stdio. Once the connection has ended (its peer left, ctx was
// cancelled, or a graceful stop let its calls finish), ended is called
// with why, nil for a clean end, on a goroutine that ends with it.
func (gw *Gateway) startConn(ctx context.Context, stream jsonrpc.Stream, budget *connBudget, principal string, headers http.Header, ended func(error)) {
	gw.conns.Add(1)
	gw.connections.Add(1)
	gw.obs.connections.Add(ctx, 1)
	cc := gw.newClientConn(principal, headers)
	cc.openStreamEarly(ctx)
	var (
		started   = make(chan struct{}) // rpc and stopDrain are set
		once      sync.Once
		rpc       *jsonrpc.Conn
		stopDrain func() bool
	)
	finish := func(drain bool) {
		once.Do(func() {
			go func() {
				<-started
				stopDrain()
				if drain {
					if ga, ok := stream.(interface{ goingAway() }); ok {
						ga.goingAway()
					}
					gw.finishCalls(rpc)
				}
				rpc.Close()
				err := rpc.Err()
				if errors.Is(err, io.EOF) || errors.Is(err, jsonrpc.ErrClosed) {
					err = nil
				}
				cc.close("client_closed")
				gw.obs.connections.Add(context.WithoutCancel(ctx), -1)
				gw.connections.Add(-1)
				gw.conns.Done()
				ended(err)
			}()
		})
	}
	rpc = jsonrpc.NewConn(ctx, stream, jsonrpc.ConnOptions{
		Handler:  cc,
		MaxBatch: gw.cfg.MaxBatch,
		// Room beyond MaxInFlight, so that excess calls reach the handler
		// and are answered 4029 instead of waiting in the queue.
		MaxConcurrent: 2 * gw.cfg.MaxInFlight,
		TooLarge:      messageTooLarge(gw.cfg.ReadLimit),
		// A client that ends its input (stdin closed, a WebSocket close
		// frame after its last request) still gets the answers to the
		// calls it sent, within the drain timeout.
		EOFGrace: gw.cfg.DrainTimeout,
		Budget:   budget,
		OnDone:   func() { finish(false) },
		OnError:  func(err error) { gw.log.Debug("jsonrpc", "error", err) },
		Unmatched: func(resp *jsonrpc.Response) {
			cc.wg.Add(1)
			go func() {
				defer cc.wg.Done()
				cc.unmatchedResponse(resp)
			}()
		},
	})
	cc.rpc.Store(rpc)
	stopDrain = context.AfterFunc(gw.draining, func() { finish(true) })
	close(started)
}
