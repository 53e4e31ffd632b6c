package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Routing among several engines (DESIGN §7).
//
// A gateway is given one engine or several (Config.Engine "a,b,…"). A
// client connection's calls go to its home engine, the first of the list,
// over the connection's Session stream — except a call that names a
// document, which goes to the engine that serves the document: the route
// the gateway remembers for it, else the home engine. A call that names a
// session and no document goes likewise to the engine that owns the
// session (engines lease sessions as they lease documents), and when it
// was resent there, that engine becomes the connection's home: the
// session's server requests, events and the client's answers then travel
// on its stream. An engine that does
// not hold the document's lease answers NOT_LEASE_HOLDER with the holder's
// address; the gateway then sends the call there (over a stream of the
// same connection to that engine) once, and remembers the route. A route
// is forgotten when its engine cannot be reached or names another holder,
// and when NOT_LEASE_HOLDER names none (a holder that died: the lease is
// taken over once it expires, by whichever engine the next call reaches).
// A call that cannot be sent to its engine (the stream does not open) goes
// to the next engine of the list instead; one that was sent and whose
// stream broke is 5003, as with one engine: its outcome is unknown.

// engineSet is the gateway's links to engines: those it was given and
// those a NOT_LEASE_HOLDER named, dialled on first use.
type engineSet struct {
	list []string // the engines the gateway was given, home first
	dial func(addr string) (*grpc.ClientConn, error)

	mu    sync.Mutex // guards conns
	conns map[string]*grpc.ClientConn

	routes sync.Map // document id → engine address
}

// engineList splits Config.Engine: addresses separated by commas.
func engineList(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func newEngineSet(spec string, dial func(addr string) (*grpc.ClientConn, error)) (*engineSet, error) {
	es := &engineSet{list: engineList(spec), dial: dial, conns: map[string]*grpc.ClientConn{}}
	if len(es.list) == 0 {
		return nil, fmt.Errorf("no engine address in %q", spec)
	}
	for _, a := range es.list {
		if _, err := es.client(a); err != nil {
			es.close()
			return nil, err
		}
	}
	return es, nil
}

// home is the first engine's address.
func (es *engineSet) home() string { return es.list[0] }

// client is the client of the engine at addr, dialled (lazily) on first
// use.
func (es *engineSet) client(addr string) (enginev1.EngineServiceClient, error) {
	conn, err := es.connTo(addr)
	if err != nil {
		return nil, err
	}
	return enginev1.NewEngineServiceClient(conn), nil
}

// connTo is the connection to the engine at addr, dialled (lazily) on
// first use.
func (es *engineSet) connTo(addr string) (*grpc.ClientConn, error) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if c := es.conns[addr]; c != nil {
		return c, nil
	}
	conn, err := es.dial(addr)
	if err != nil {
		return nil, fmt.Errorf("engine %q: %w", addr, err)
	}
	es.conns[addr] = conn
	return conn, nil
}

func (es *engineSet) close() error {
	es.mu.Lock()
	defer es.mu.Unlock()
	var errs []error
	for _, c := range es.conns {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// route is where a call for key (a document or session id) goes first:
// its remembered route, else home.
func (es *engineSet) route(key, home string) string {
	if key != "" {
		if a, ok := es.routes.Load(key); ok {
			return a.(string)
		}
	}
	return home
}

// next is the engine of the list after addr (the home engine after one
// that is not in the list).
func (es *engineSet) next(addr string) string {
	for i, a := range es.list {
		if a == addr {
			return es.list[(i+1)%len(es.list)]
		}
	}
	return es.home()
}

func (es *engineSet) remember(doc, addr string) {
	if doc != "" {
		es.routes.Store(doc, addr)
	}
}

func (es *engineSet) forget(doc, addr string) {
	if doc != "" {
		es.routes.CompareAndDelete(doc, addr)
	}
}

// settle updates doc's route after the engine at addr answered a call on
// it (home is where the call goes without a route), served or refused
// NOT_LEASE_HOLDER naming holder: served elsewhere than home, the route is
// kept; refused for the first time (not redirected) by an engine that names
// another holder, the call goes there, and next is its address; otherwise
// the route is dropped.
func (es *engineSet) settle(doc, addr, home string, served bool, holder string, redirected bool) (next string) {
	switch {
	case served && addr != home:
		es.remember(doc, addr)
	case !served && holder != "" && holder != addr && !redirected:
		es.remember(doc, holder)
		return holder
	default:
		es.forget(doc, addr)
	}
	return ""
}

// routeKey is what a call's params route by: the document they name
// (document_id), else their session (session_id, bySession true), else
// nothing.
func routeKey(params proto.Message) (key string, bySession bool) {
	if doc := stringField(params, "document_id"); doc != "" {
		return doc, false
	}
	if ses := stringField(params, "session_id"); ses != "" {
		return ses, true
	}
	return "", false
}

func stringField(params proto.Message, name protoreflect.Name) string {
	if params == nil {
		return ""
	}
	m := params.ProtoReflect()
	fd := m.Descriptor().Fields().ByName(name)
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
		return ""
	}
	return m.Get(fd).String()
}

// notLeaseHolder reports whether result is a NOT_LEASE_HOLDER refusal,
// and the holder's address it names ("" for none).
func notLeaseHolder(result *enginev1.SessionCallResult) (holder string, ok bool) {
	e := result.GetError()
	if e == nil {
		return "", false
	}
	return notLeaseHolderStatus(status.FromProto(e))
}

// notLeaseHolderStatus is notLeaseHolder for a gRPC status.
func notLeaseHolderStatus(s *status.Status) (holder string, ok bool) {
	if s.Code() != codes.FailedPrecondition {
		return "", false
	}
	info := errorInfo(s)
	if info.GetReason() != enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER.String() {
		return "", false
	}
	return info.GetMetadata()["holder"], true
}

// routedConn is the gateway's unary link to its engines (REST under
// /v1/): a call that names a document goes to the engine that serves it,
// as a Session-stream call does (see routeCall): its remembered route,
// else home; a NOT_LEASE_HOLDER sends it once to the holder it names, and
// the route is remembered. Streams go to the home engine.
type routedConn struct{ es *engineSet }

func (rc routedConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	msg, _ := args.(proto.Message)
	doc, bySession := routeKey(msg)
	if bySession {
		doc = "" // sessions are the Session stream's; other calls go home
	}
	addr := rc.es.route(doc, rc.es.home())
	for redirected := false; ; redirected = true {
		conn, err := rc.es.connTo(addr)
		if err != nil {
			return status.Error(codes.Unavailable, err.Error())
		}
		err = conn.Invoke(ctx, method, args, reply, opts...)
		holder, refused := notLeaseHolderStatus(status.Convert(err))
		if err == nil || refused || status.Code(err) == codes.Unavailable {
			if next := rc.es.settle(doc, addr, rc.es.home(), err == nil, holder, redirected); next != "" {
				addr = next
				continue
			}
		}
		return err
	}
}

func (rc routedConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	conn, err := rc.es.connTo(rc.es.home())
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return conn.NewStream(ctx, desc, method, opts...)
}

// routeCall sends call, whose params are params, to the engine that
// serves the document it names (see above) and returns its result, and
// the release of its wire JSON's buffer (see engineStream.call).
func (c *clientConn) routeCall(ctx context.Context, params proto.Message, call *enginev1.SessionCall) (*enginev1.SessionCallResult, func(), error) {
	es := c.gw.engines
	doc, bySession := routeKey(params)
	c.mu.Lock()
	home := c.homeLocked()
	c.mu.Unlock()
	addr := es.route(doc, home)
	unreachable, redirected := 0, false
	for {
		stream, err := c.streamTo(ctx, addr)
		if err != nil {
			// Not sent: another engine may serve it.
			es.forget(doc, addr)
			if unreachable++; unreachable < len(es.list) && ctx.Err() == nil {
				addr = es.next(addr)
				continue
			}
			return nil, nil, err
		}
		result, release, err := stream.call(ctx, call)
		if err != nil {
			es.forget(doc, addr)
			return nil, nil, err
		}
		holder, refused := notLeaseHolder(result)
		if next := es.settle(doc, addr, home, !refused, holder, redirected); next != "" {
			release()
			redirected, addr = true, next
			continue
		}
		if !refused && bySession && redirected {
			c.rehome(addr)
		}
		return result, release, nil
	}
}

// homeLocked is the address of the connection's home engine; the caller
// holds c.mu.
func (c *clientConn) homeLocked() string {
	if c.home != "" {
		return c.home
	}
	return c.gw.engines.home()
}

// homeClientLocked is the client of the home engine; the caller holds
// c.mu.
func (c *clientConn) homeClientLocked() (enginev1.EngineServiceClient, error) {
	client, err := c.gw.engines.client(c.homeLocked())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errEngineUnavailable, err)
	}
	return client, nil
}

// rehome makes the engine at addr the connection's home, its stream
// there the one that carries the session's frames and the client's
// answers; the former home stream stays open among the others.
func (c *clientConn) rehome(addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.homeLocked()
	if old == addr {
		return
	}
	if c.others == nil {
		c.others = map[string]*engineStream{}
	}
	if c.stream != nil {
		c.others[old] = c.stream
	}
	c.stream = c.others[addr]
	delete(c.others, addr)
	c.home = addr
}

// streamTo is the connection's Session stream to the engine at addr:
// its home stream for the home engine, else one opened on first use.
func (c *clientConn) streamTo(ctx context.Context, addr string) (*engineStream, error) {
	c.mu.Lock()
	home := c.homeLocked()
	c.mu.Unlock()
	if addr == home {
		return c.engineStream(ctx)
	}
	client, err := c.gw.engines.client(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errEngineUnavailable, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.others[addr]; s != nil {
		select {
		case <-s.done:
			delete(c.others, addr)
		default:
			return s, nil
		}
	}
	s, err := openEngineStream(context.WithoutCancel(ctx), client, c.principal, c.gw.id, c.onEngineFrame)
	if err != nil {
		return nil, err
	}
	if c.others == nil {
		c.others = map[string]*engineStream{}
	}
	c.others[addr] = s
	return s, nil
}

// closeOthers detaches the connection's streams to engines other than its
// home.
func (c *clientConn) closeOthers(reason string) {
	c.mu.Lock()
	others := c.others
	c.others = nil
	c.mu.Unlock()
	for _, s := range others {
		s.close(reason)
	}
}
