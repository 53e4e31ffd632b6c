package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// build compiles cadengine and gateway into dir from the module that holds
// the working directory, and returns their paths.
func build(ctx context.Context, dir string) (engine, gateway string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", "", errors.New("not inside the cadbridge module: give --engine-bin and --gateway-bin")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./services/cadengine/cmd/cadengine", "./services/gateway/cmd/gateway")
	cmd.Dir = filepath.Dir(mod)
	if data, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build: %w\n%s", err, data)
	}
	return filepath.Join(dir, "cadengine"), filepath.Join(dir, "gateway"), nil
}

// process is a service the soak started.
type process struct {
	name    string
	cmd     *exec.Cmd
	metrics string // URL of its /metrics
	addr    string // the address it announced
	stderr  *tail
	done    chan struct{} // closed when it has exited; err is then set
	err     error
}

// start runs path with args and waits (up to a minute) until its stdout
// has matched every pattern, each of whose first group it returns.
func start(ctx context.Context, name, path string, args []string, patterns ...*regexp.Regexp) (*process, []string, error) {
	cmd := exec.Command(path, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	p := &process{name: name, cmd: cmd, stderr: &tail{max: 8 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	found := make([]string, len(patterns))
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		left := len(patterns)
		for sc.Scan() {
			for i, re := range patterns {
				if m := re.FindStringSubmatch(sc.Text()); m != nil && found[i] == "" {
					found[i] = m[1]
					if left--; left == 0 {
						close(ready)
					}
				}
			}
		}
		io.Copy(io.Discard, stdout)
		p.err = cmd.Wait()
		close(p.done)
	}()
	select {
	case <-ready:
		return p, found, nil
	case <-p.done:
		return nil, nil, fmt.Errorf("%s exited before it was ready: %v\n%s", name, p.err, p.stderr)
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	p.stop()
	return nil, nil, fmt.Errorf("%s did not announce itself\n%s", name, p.stderr)
}

// stop interrupts the process and waits for it, killing it after 15 s.
func (p *process) stop() error {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within 15 s of SIGINT", p.name)
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return p.err
	}
	if p.err != nil {
		return fmt.Errorf("%s exited: %v\n%s", p.name, p.err, p.stderr)
	}
	return nil
}

// alive reports whether the process still runs.
func (p *process) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	mu  sync.Mutex // guards buf
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Usage is a process's resident memory and goroutines, from its /metrics.
type Usage struct {
	// RSS is process_resident_memory_bytes.
	RSS float64
	// Goroutines is go_goroutines.
	Goroutines float64
}

// Span is a quantity at the start of the run, its peak and its end.
type Span struct {
	// Start, Peak and End are the values.
	Start, Peak, End float64
}

// usageLine matches the two series a usage sample needs.
var usageLine = regexp.MustCompile(`(?m)^(process_resident_memory_bytes|go_goroutines) (\S+)$`)

// sample scrapes url (a /metrics page).
func sample(ctx context.Context, url string) (Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Usage{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Usage{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	found := 0
	for _, m := range usageLine.FindAllStringSubmatch(string(body), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		found++
		if m[1] == "go_goroutines" {
			u.Goroutines = v
		} else {
			u.RSS = v
		}
	}
	if found < 2 {
		return Usage{}, fmt.Errorf("%s lacks process_resident_memory_bytes or go_goroutines", url)
	}
	return u, nil
}

// watch samples the processes' usage every interval until ctx is done,
// and keeps start, peak and end of each.
type watch struct {
	mu  sync.Mutex // guards rss and gor
	rss map[string]*Span
	gor map[string]*Span
}

func (w *watch) record(name string, u Usage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range []struct {
		m map[string]*Span
		v float64
	}{{w.rss, u.RSS}, {w.gor, u.Goroutines}} {
		s := x.m[name]
		if s == nil {
			s = &Span{Start: x.v}
			x.m[name] = s
		}
		s.Peak = max(s.Peak, x.v)
		s.End = x.v
	}
}

func (w *watch) run(ctx context.Context, interval time.Duration, procs []*process) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, p := range procs {
			if u, err := sample(ctx, p.metrics); err == nil {
				w.record(p.name, u)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
