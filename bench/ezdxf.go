package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The DXF rows measure cadbridge against ezdxf, the reference DXF library
// (Debian's python3-ezdxf, 0.18, in /usr/bin/python3; .ci/run installs
// it), each ezdxf side in a child Python process.

// defaultPython is the interpreter that has Debian's python3-ezdxf.
const defaultPython = "/usr/bin/python3"

// python is an interpreter that imports ezdxf.
type python struct {
	path    string
	version string // ezdxf's
}

// dxfShared is what the DXF rows of one run share: the interpreter, found
// once, and the files ezdxf wrote, each made once and removed by remove.
type dxfShared struct {
	py    *python
	pyErr error
	dir   string
	lines map[int]*linesFile
}

// remove removes the files ezdxf wrote.
func (s *dxfShared) remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir, s.lines = "", nil
	}
}

// python finds the interpreter with ezdxf (Config.Python, by default
// /usr/bin/python3). Without one the row is skipped, saying why, and nil is
// returned — or, under CI=true, where .ci/run installs python3-ezdxf, the
// row fails.
func (e *env) python(ctx context.Context, row *Row) (*python, error) {
	s := &e.dxf
	if s.py == nil && s.pyErr == nil {
		path := e.cfg.Python
		if path == "" {
			path = defaultPython
		}
		out, err := exec.CommandContext(ctx, path, "-c", "import ezdxf; print(ezdxf.__version__)").CombinedOutput()
		if err == nil && len(bytes.TrimSpace(out)) == 0 {
			err = errors.New("it printed no ezdxf version")
		}
		if err != nil {
			s.pyErr = withOutput(fmt.Errorf("%s cannot import ezdxf (install Debian's python3-ezdxf): %w", path, err), out)
		} else {
			s.py = &python{path: path, version: strings.TrimSpace(string(out))}
		}
	}
	if s.pyErr != nil {
		if os.Getenv("CI") == "true" {
			return nil, s.pyErr
		}
		row.Skipped = s.pyErr.Error()
		return nil, nil
	}
	return s.py, nil
}

// lastLine is the last non-empty line of a child's output.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// withOutput adds the last line a failed child printed to its error.
func withOutput(err error, out []byte) error {
	if line := lastLine(out); line != "" {
		return fmt.Errorf("%w: %s", err, line)
	}
	return err
}

// run runs script with args in a child interpreter and returns its wall
// time, from the start of the process to its exit, and what it printed.
func (p *python) run(ctx context.Context, script string, args ...string) (time.Duration, []byte, error) {
	cmd := exec.CommandContext(ctx, p.path, append([]string{"-c", script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, nil, withOutput(fmt.Errorf("%s -c …: %w", p.path, err), stderr.Bytes())
	}
	return d, stdout.Bytes(), nil
}

// seconds parses the number of seconds a child printed as its last line.
func seconds(out []byte) (time.Duration, error) {
	s, err := strconv.ParseFloat(lastLine(out), 64)
	if err != nil {
		return 0, fmt.Errorf("the child printed %q, not seconds", lastLine(out))
	}
	return time.Duration(s * float64(time.Second)), nil
}

// linesScript writes a DXF file of n LINEs on 10 layers with ezdxf
// (argv: path, n).
const linesScript = `
import sys, ezdxf
doc = ezdxf.new('R2018')
msp = doc.modelspace()
for i in range(int(sys.argv[2])):
    msp.add_line((i, 0), (i, 1 + i % 7), dxfattribs={'layer': 'L%d' % (i % 10)})
doc.saveas(sys.argv[1])
`

// linesFile is a DXF file of lines written by ezdxf.
type linesFile struct {
	path    string
	lines   int
	content string
	took    time.Duration // for ezdxf to write it
}

// linesFile returns the DXF file of n LINEs that ezdxf writes (R2018, ten
// layers), made once per run in a directory of the run's.
func (e *env) linesFile(ctx context.Context, py *python, n int) (*linesFile, error) {
	s := &e.dxf
	if f := s.lines[n]; f != nil {
		return f, nil
	}
	if s.dir == "" {
		dir, err := e.tempDir("cadbench-dxf-")
		if err != nil {
			return nil, err
		}
		s.dir, s.lines = dir, map[int]*linesFile{}
	}
	path := filepath.Join(s.dir, fmt.Sprintf("lines-%d.dxf", n))
	took, _, err := py.run(ctx, linesScript, path, strconv.Itoa(n))
	if err != nil {
		return nil, fmt.Errorf("ezdxf writing %d lines: %w", n, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// About 116 bytes a line (its handle, layer, subclass markers and two
	// points in R2018's group codes) after some 20 KiB of header and
	// tables: a file much smaller is not what the rows mean to read.
	if want := 100 * n; len(data) < want {
		return nil, fmt.Errorf("ezdxf wrote %d bytes for %d lines, want at least %d", len(data), n, want)
	}
	f := &linesFile{path: path, lines: n, content: string(data), took: took}
	s.lines[n] = f
	return f, nil
}

// saverScript loads argv[1] with ezdxf, says "ready", and then, for every
// line read from stdin, saves the document as argv[2] and prints how long
// the save took (time.perf_counter), loading not counted.
const saverScript = `
import sys, time, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print('ready', flush=True)
for _ in sys.stdin:
    t = time.perf_counter()
    doc.saveas(sys.argv[2])
    print(time.perf_counter() - t, flush=True)
`

// saver is a child interpreter holding a loaded document that it saves on
// request.
type saver struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

// startSaver starts a saver of the DXF file src that writes to dst, and
// waits until it has loaded src.
func (p *python) startSaver(ctx context.Context, src, dst string) (*saver, error) {
	s := &saver{cmd: exec.CommandContext(ctx, p.path, "-c", saverScript, src, dst)}
	s.cmd.Stderr = &s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.out = bufio.NewReader(out)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	if line, err := s.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		s.close()
		return nil, withOutput(fmt.Errorf("ezdxf loading %s: %q %v", filepath.Base(src), line, err), s.stderr.Bytes())
	}
	return s, nil
}

// save has the child save its document once and returns the time it
// reports for the save.
func (s *saver) save() (time.Duration, error) {
	if _, err := io.WriteString(s.in, "save\n"); err != nil {
		return 0, withOutput(fmt.Errorf("ezdxf saver: %w", err), s.stderr.Bytes())
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return 0, withOutput(fmt.Errorf("ezdxf saver: %w", err), s.stderr.Bytes())
	}
	return seconds([]byte(line))
}

// close ends the child.
func (s *saver) close() error {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		return withOutput(fmt.Errorf("ezdxf saver: %w", err), s.stderr.Bytes())
	}
	return nil
}
