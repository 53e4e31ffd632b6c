package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cadbridge/cadbridge/services/gateway"
)

// SessionHolder opens n WebSocket connections to the gateway at addr,
// each with a session (session.create), and keeps them open, idle, until
// release is called.
type SessionHolder func(ctx context.Context, gateway string, n int) (release func() error, err error)

// Sessions are idle WebSocket sessions held open.
type Sessions struct {
	clients []*Client
}

// holdConcurrency is how many sessions HoldSessions opens at once.
const holdConcurrency = 32

// HoldSessions opens n connections to the gateway at addr, each with
// session.create, holdConcurrency at a time. On error it closes what it
// opened.
func HoldSessions(ctx context.Context, addr string, n int) (*Sessions, error) {
	s := &Sessions{clients: make([]*Client, n)}
	next := make(chan int)
	errs := make(chan error, holdConcurrency)
	var wg sync.WaitGroup
	for range min(holdConcurrency, n) {
		wg.Go(func() {
			for i := range next {
				c, err := Dial(ctx, addr, nil)
				if err == nil {
					s.clients[i] = c
					_, err = createSession(ctx, c, nil)
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("session %d: %w", i, err):
					default:
					}
				}
			}
		})
	}
	var err error
	for i := range n {
		select {
		case err = <-errs:
		default:
		}
		if err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case e := <-errs:
		err = errors.Join(err, e)
	default:
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes every connection; the sessions stay with the engine, as
// after any disconnection.
func (s *Sessions) Close() error {
	var wg sync.WaitGroup
	next := make(chan *Client)
	for range holdConcurrency {
		wg.Go(func() {
			for c := range next {
				c.Close()
			}
		})
	}
	for _, c := range s.clients {
		if c != nil {
			next <- c
		}
	}
	close(next)
	wg.Wait()
	return nil
}

// inProcessHolder holds sessions in this process.
func inProcessHolder(ctx context.Context, gateway string, n int) (func() error, error) {
	s, err := HoldSessions(ctx, gateway, n)
	if err != nil {
		return nil, err
	}
	return s.Close, nil
}

// HolderFlag is the flag that makes a cadbench process a session holder
// (see ExecHolder and ServeHolder); GatewayFlag names the gateway.
const (
	HolderFlag  = "hold-sessions"
	GatewayFlag = "gateway"
)

// ExecHolder holds sessions in a child process, so that their client side
// is not counted in this process's heap: it runs path with args and then
// "--hold-sessions N --gateway ADDR", which must serve ServeHolder, and
// releases the sessions by closing the child's stdin.
func ExecHolder(path string, args ...string) SessionHolder {
	return func(ctx context.Context, gateway string, n int) (func() error, error) {
		cmd := exec.Command(path, append(args, "--"+HolderFlag, strconv.Itoa(n), "--"+GatewayFlag, gateway)...)
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start session holder: %w", err)
		}
		// A goroutine reads the first line and ends: while the sessions
		// are held, this process keeps none for the child, so that only
		// the services' goroutines are counted.
		r := bufio.NewReader(stdout)
		line := make(chan string, 1)
		go func() {
			s, _ := r.ReadString('\n')
			line <- strings.TrimSpace(s)
		}()
		// stop ends the child, once its first line has been read, and
		// reads the rest of its output until it exits.
		stop := func() error {
			stdin.Close() // the child closes its sessions and exits
			kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
			io.Copy(io.Discard, r)
			err := cmd.Wait()
			if !kill.Stop() {
				return errors.New("session holder did not stop within a minute; killed")
			}
			return err
		}
		select {
		case s := <-line:
			if s != "ready" {
				stop()
				return nil, fmt.Errorf("session holder: %s", strings.TrimPrefix(s, "error: "))
			}
		case <-ctx.Done():
			cmd.Process.Kill()
			<-line
			stop()
			return nil, ctx.Err()
		}
		return stop, nil
	}
}

// ServeHolder is the child's side of ExecHolder: it holds n sessions on
// the gateway at addr, writes "ready" (or "error: …") as a line to out,
// and closes them when in reaches its end.
func ServeHolder(ctx context.Context, addr string, n int, in io.Reader, out io.Writer) error {
	if _, err := raiseFileLimit(uint64(n) + 256); err != nil {
		fmt.Fprintf(out, "error: %v\n", err)
		return err
	}
	s, err := HoldSessions(ctx, addr, n)
	if err != nil {
		fmt.Fprintf(out, "error: %v\n", err)
		return err
	}
	fmt.Fprintln(out, "ready")
	io.Copy(io.Discard, in)
	return s.Close()
}

// idleSessions measures the memory an idle WebSocket session costs the
// services: the heap and goroutine stacks in use (after a full garbage
// collection) with n sessions open, less that with none, over n.
func idleSessions(ctx context.Context, e *env, row *Row, n, full int) error {
	row.Title = "memory per idle WebSocket session (connected, session.create, then nothing): gateway and engine heap + stacks"
	row.Size = e.sizeNote(n, full, "sessions")
	holder, where := e.cfg.Holder, "a child process (not counted)"
	fds := uint64(n) + 256 // the gateway's side of each connection, and slack
	if holder == nil {
		holder, where = inProcessHolder, "this process, so their client side is counted too"
		fds += uint64(n) // and the clients' side
	}
	if limit, err := raiseFileLimit(fds); limit < fds {
		row.Skipped = fmt.Sprintf("needs about %d open files, the limit is %d (%v)", fds, limit, err)
		return nil
	}
	st, err := Start(Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	// Warm up: the first sessions set up what every later one shares.
	idle := runtime.NumGoroutine()
	release, err := inProcessHolder(ctx, st.Gateway, 8)
	if err != nil {
		return err
	}
	release()
	// The services tear the connections down: wait until their
	// goroutines are gone (a loaded machine takes longer than it used
	// to be given), so that none of the warm-up is counted before.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > idle && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)

	e.ready()
	heap0, stack0 := memInUse()
	g0 := runtime.NumGoroutine()
	start := time.Now()
	release, err = holder(ctx, st.Gateway, n)
	if err != nil {
		return err
	}
	opened := time.Since(start)
	// Let the last sessions settle, and their readers park as an idle
	// session's do.
	time.Sleep(gateway.DefaultParkAfter + 200*time.Millisecond)
	heap1, stack1 := memInUse()
	g1 := runtime.NumGoroutine()
	if err := release(); err != nil {
		return fmt.Errorf("release sessions: %w", err)
	}
	perHeap := (float64(heap1) - float64(heap0)) / float64(n)
	perStack := (float64(stack1) - float64(stack0)) / float64(n)
	row.Checks = []Check{
		check("KiB/session", "heap + stacks in use per session (lower is better)", (perHeap+perStack)/1024, "KiB", Goal{"<=", 64}),
		check("goroutines/session", "goroutines per session (lower is better)", float64(g1-g0)/float64(n), "", Goal{"<=", 3}),
	}
	row.Notes = []string{
		fmt.Sprintf("Per session: %.1f KiB of heap, %.1f KiB of goroutine stacks, %.1f goroutines (heap in use %s → %s, stacks %s → %s).",
			perHeap/1024, perStack/1024, float64(g1-g0)/float64(n), bytesSize(int(heap0)), bytesSize(int(heap1)), bytesSize(int(stack0)), bytesSize(int(stack1))),
		fmt.Sprintf("Gateway and engine run in one process, so this counts both: the gateway's connection, JSON-RPC and Session-stream state and the engine's session, its stream and its stored state (memory store). The clients are held in %s.", where),
		fmt.Sprintf("Opening the %d sessions took %s (%d at a time).", n, fmtDur(opened), holdConcurrency),
	}
	return nil
}

// memInUse is the heap and the goroutine stacks in use after a full
// garbage collection.
func memInUse() (heap, stacks uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, ms.StackInuse
}
