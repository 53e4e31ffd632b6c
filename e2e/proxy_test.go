package e2e_test

import (
	"math/rand"
	"net"
	"sync"
	"testing"
)

// proxy forwards TCP connections to a target and can slice what it
// forwards into tiny writes or reset every connection at once: the
// gateway↔engine link under test.
type proxy struct {
	lis    net.Listener
	target string

	mu      sync.Mutex // guards conns, slice and stalled
	conns   []net.Conn
	slice   bool
	stalled chan struct{} // non-nil while forwarding is stalled; closed to resume
	wg      sync.WaitGroup
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{lis: lis, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		lis.Close()
		p.unstall()
		p.reset()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) addr() string { return p.lis.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.lis.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(out, in)
		go p.pipe(in, out)
	}
}

// pipe copies src to dst, in slices of 1–7 bytes while slicing is on.
func (p *proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		gate := p.stalled
		p.mu.Unlock()
		if gate != nil {
			<-gate // hold what was read until the stall ends
		}
		data := buf[:n]
		for len(data) > 0 {
			chunk := len(data)
			p.mu.Lock()
			if p.slice {
				chunk = min(chunk, 1+rand.Intn(7))
			}
			p.mu.Unlock()
			if _, werr := dst.Write(data[:chunk]); werr != nil {
				return
			}
			data = data[chunk:]
		}
		if err != nil { // EOF or reset: close the other side too
			return
		}
	}
}

// setSlice turns slicing on or off.
func (p *proxy) setSlice(on bool) {
	p.mu.Lock()
	p.slice = on
	p.mu.Unlock()
}

// stall stops forwarding in both directions (bytes are held, not
// dropped) until unstall.
func (p *proxy) stall() {
	p.mu.Lock()
	p.stalled = make(chan struct{})
	p.mu.Unlock()
}

func (p *proxy) unstall() {
	p.mu.Lock()
	if p.stalled != nil {
		close(p.stalled)
		p.stalled = nil
	}
	p.mu.Unlock()
}

// reset closes every forwarded connection abruptly (RST where possible).
func (p *proxy) reset() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
}
