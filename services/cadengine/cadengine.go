// Package cadengine is the CAD engine service: it keeps documents (see
// package core) and serves cad.engine.v1.EngineService over gRPC — the
// Session stream that gateways open per client connection, and the unary
// RPCs that internal services and REST use.
package cadengine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/grpclink"
	"github.com/cadbridge/cadbridge/internal/mtls"
	"github.com/cadbridge/cadbridge/internal/protocodec"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Config configures the engine.
type Config struct {
	// Listen is the gRPC address, for example "127.0.0.1:7401".
	Listen string
	// Store chooses the store: "sqlite:PATH", "memory:" or a
	// "postgres://…" URL (see [OpenStore]).
	Store string
	// Reflection turns gRPC server reflection on even when Listen is not a
	// loopback address (it is always on for loopback).
	Reflection bool
	// TLS is the engine's certificate and key and the CA whose client
	// certificates it accepts: with them the engine serves mutual TLS, and
	// a caller without a certificate of that CA is refused in the
	// handshake, before any call. Without them it serves plaintext, on
	// loopback only (Serve refuses any other address).
	TLS mtls.Files
	// MetricsListen is the HTTP address of /metrics (Prometheus text),
	// /healthz and /readyz; empty means none. Port 0 takes a free port,
	// which MetricsListening is told.
	MetricsListen string
	// MetricsListening, if set, is called with the metrics listener's
	// address once it accepts connections.
	MetricsListening func(addr net.Addr)
	// MaxMessage caps one gRPC message in either direction, in bytes; 0
	// means DefaultMaxMessage. A call's args travel in one message: an
	// entity_batch_create of 100k lines needs about 6 MiB.
	MaxMessage int
	// DrainTimeout bounds a graceful stop; 0 means 10 s. Calls still
	// running when it is up are cancelled, and stop within 100 ms (every
	// loop that expands work watches its call's context).
	DrainTimeout time.Duration
	// ExpansionLimit is the most primitives one call may expand (see
	// engine.Options.ExpansionLimit); 0 means 10 million.
	ExpansionLimit int64
	// RequestTimeout bounds a wait for the client's answer to a server
	// request (withdrawn with reason timeout); 0 means 10 minutes.
	RequestTimeout time.Duration
	// Logger receives the engine's logs; nil means slog.Default().
	Logger *slog.Logger
	// Telemetry receives the engine's traces and metrics; nil records
	// nothing.
	Telemetry *telemetry.Providers
	// Listening, if set, is called with the bound address once the engine
	// accepts connections.
	Listening func(addr net.Addr)
	// Advertise is the address gateways and peers reach the engine at,
	// registered in a shared (PostgreSQL) store; empty means the bound
	// listen address.
	Advertise string
	// LeaseTTL is how long a document lease and the engine's registration
	// live unless renewed, on a shared store; 0 means
	// engine.DefaultLeaseTTL (10 s).
	LeaseTTL time.Duration
}

// DefaultMaxMessage is the largest gRPC message by default: 16 MiB, above
// what the gateway's default read limit lets through (1 MiB), so that the
// edge, not the link, bounds a call.
const DefaultMaxMessage = 16 << 20

// Server is a running engine: the core, the session registry and the gRPC
// service over them.
type Server struct {
	enginev1.UnimplementedEngineServiceServer

	cfg      Config
	log      *slog.Logger
	store    store.Store
	engine   *engine.Engine
	sessions *sessions
	health   *health.Server
	grpc     *grpc.Server
	obs      *observability
	tools    *enginev1.ListToolsResponse // the catalog, rendered once
	// draining is done when a graceful stop begins (startDrain).
	draining   context.Context
	startDrain context.CancelFunc
	// base is the context of Session stream calls, which outlive their
	// stream; cancelled when a stop's drain time is up.
	base       context.Context
	cancelBase context.CancelFunc
	work       sync.WaitGroup // Session stream calls running
}

// New opens the store and loads the documents.
func New(cfg Config) (*Server, error) {
	if cfg.DrainTimeout == 0 {
		cfg.DrainTimeout = 10 * time.Second
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Minute
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	store, err := OpenStore(cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", cfg.Store, err)
	}
	sess := newSessions(time.Now, store, log)
	if err := sess.load(context.Background()); err != nil {
		store.Close()
		return nil, err
	}
	tel := cfg.Telemetry
	if tel == nil {
		tel = telemetry.Disabled()
	}
	eopts := engine.Options{Version: version, OnCommit: sess.documentChanged, Tracer: tel.Tracer, Meter: tel.Meter, ExpansionLimit: cfg.ExpansionLimit}
	if shared, ok := sharedStore(store); ok {
		eopts.Sharing = &engine.Sharing{Store: shared, ID: engine.NewEngineID(), TTL: cfg.LeaseTTL, Logger: log}
	}
	eng, err := engine.New(store, eopts)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("load documents: %w", err)
	}
	if eng.EngineID() != "" {
		sess.leases, sess.shared = eng, eopts.Sharing.Store
	}
	obs, err := newObservability(tel, sess)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	tools, err := toolCatalog()
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("tool catalog: %w", err)
	}
	if sess.shared != nil {
		sess.events = newEventLog(sess.shared, eng, log)
		sess.remote = newRemoteRequests(sess, eng.EngineID(), log)
		sess.handoffs = newHandoffs(sess, log)
	}
	s := &Server{
		obs:      obs,
		tools:    tools,
		cfg:      cfg,
		log:      log,
		store:    store,
		engine:   eng,
		sessions: sess,
		health:   health.NewServer(),
	}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.draining, s.startDrain = context.WithCancel(context.Background())
	maxMessage := cmp.Or(cfg.MaxMessage, DefaultMaxMessage)
	opts := []grpc.ServerOption{
		grpc.StatsHandler(tel.GRPCServerHandler()),
		grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage),
		grpc.ForceServerCodecV2(protocodec.New()),
		grpc.StaticStreamWindowSize(grpclink.StreamWindow), grpc.StaticConnWindowSize(grpclink.ConnWindow),
	}
	if cfg.TLS.Enabled() {
		tc, err := mtls.Server(cfg.TLS, "--tls-cert, --tls-key and --client-ca")
		if err != nil {
			store.Close()
			return nil, err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(tc)))
	}
	s.grpc = grpc.NewServer(append(opts,
		// Gateways ping idle links every 10 s to notice stalls; allow it.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}))...)
	enginev1.RegisterEngineServiceServer(s.grpc, s)
	healthpb.RegisterHealthServer(s.grpc, s.health)
	return s, nil
}

// Serve serves gRPC on lis until ctx is cancelled, then stops gracefully:
// readiness goes false, in-flight calls get DrainTimeout to finish, and the
// store is closed. Without Config.TLS it refuses a listener that is not
// on loopback (mtls.ErrOpenOffLoopback).
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	if !s.cfg.TLS.Enabled() && !isLoopback(lis.Addr()) {
		s.close()
		return fmt.Errorf("serve on %s: %w (give --tls-cert, --tls-key and --client-ca)", lis.Addr(), mtls.ErrOpenOffLoopback)
	}
	if s.cfg.Reflection || isLoopback(lis.Addr()) {
		reflection.Register(s.grpc)
	}
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(enginev1.EngineService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	if s.cfg.MetricsListen != "" {
		stop, err := s.serveMetrics(s.cfg.MetricsListen)
		if err != nil {
			s.close()
			return err
		}
		defer stop()
	}
	if err := s.engine.Register(ctx, cmp.Or(s.cfg.Advertise, lis.Addr().String())); err != nil {
		s.close()
		return err
	}
	if stop := s.watchChanges(); stop != nil {
		defer stop()
	}
	// On a shared store, server requests and events of calls whose session
	// another engine owns travel through the store.
	if rr := s.sessions.remote; rr != nil {
		defer goUntilStopped(rr.watch)()
	}
	if h := s.sessions.handoffs; h != nil {
		defer goUntilStopped(h.watch)()
	}
	if s.cfg.Listening != nil {
		s.cfg.Listening(lis.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- s.grpc.Serve(lis) }()
	select {
	case err := <-errc:
		s.cancelBase()
		s.work.Wait()
		s.close()
		return err
	case <-ctx.Done():
	}
	// Readiness goes false; open server requests are withdrawn (their steps
	// end); Session streams finish their calls and close; then unary calls
	// drain.
	s.health.Shutdown()
	for _, sess := range s.sessions.all() {
		sess.withdrawAll(enginev1.CancelReason_CANCEL_REASON_SHUTDOWN)
	}
	if rr := s.sessions.remote; rr != nil {
		rr.withdrawAll(enginev1.CancelReason_CANCEL_REASON_SHUTDOWN)
	}
	s.startDrain()
	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(s.cfg.DrainTimeout):
		s.log.Warn("drain timed out; stopping", "timeout", s.cfg.DrainTimeout)
		s.grpc.Stop()
		<-stopped
	}
	<-errc
	s.finishWork()
	return s.close()
}

// finishWork gives running stream calls the drain timeout to end, then
// cancels them and waits.
func (s *Server) finishWork() {
	done := make(chan struct{})
	go func() {
		s.work.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.cfg.DrainTimeout):
		s.cancelBase()
		<-done
	}
	s.cancelBase()
}

// close hands over and writes the sessions' events still queued, then
// closes the core (which lets go of its leases) and the store it writes
// to.
func (s *Server) close() error {
	if s.sessions.handoffs != nil {
		s.sessions.handoffs.close()
	}
	if s.sessions.events != nil {
		s.sessions.events.close()
	}
	return errors.Join(s.engine.Close(), s.store.Close())
}

// Run listens on cfg.Listen and serves until ctx is cancelled.
func Run(ctx context.Context, cfg Config) error {
	if !cfg.TLS.Enabled() && !mtls.IsLoopback(cfg.Listen) {
		return fmt.Errorf("listen on %s: %w (give --tls-cert, --tls-key and --client-ca)", cfg.Listen, mtls.ErrOpenOffLoopback)
	}
	s, err := New(cfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		s.close()
		return fmt.Errorf("listen: %w", err)
	}
	err = s.Serve(ctx, lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// serveMetrics serves /metrics, /healthz and /readyz over HTTP on addr and
// returns the function that stops it.
func (s *Server) serveMetrics(addr string) (func(), error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.obs.providers.Metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		resp, err := s.health.Check(r.Context(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(lis)
	}()
	s.log.Info("metrics listening", "addr", lis.Addr().String())
	if s.cfg.MetricsListening != nil {
		s.cfg.MetricsListening(lis.Addr())
	}
	return func() {
		srv.Close()
		<-done
	}, nil
}

// watchChanges, on a shared store that tells document commits
// (store.Changes), fans out document.changed to this engine's subscribed
// sessions for the commits of other engines (its own are told by the
// engine's OnCommit). It returns the function that stops it, or nil.
func (s *Server) watchChanges() func() {
	w, ok := s.store.(store.Changes)
	self := s.engine.EngineID()
	if !ok || self == "" {
		return nil
	}
	return goUntilStopped(func(ctx context.Context) {
		w.WatchChanges(ctx, func(ch store.DocumentChange) {
			if ch.Holder != self {
				s.sessions.documentChanged(ch.DocumentID, ch.Revision, ch.OperationID)
			}
		})
	})
}

// goUntilStopped runs fn in a goroutine until the returned function
// cancels fn's context and waits for it.
func goUntilStopped(fn func(ctx context.Context)) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
