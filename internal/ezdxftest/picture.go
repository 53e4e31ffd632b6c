package ezdxftest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// Matplotlib returns a python3 that can import ezdxf and matplotlib (the
// drawing add-on's backend), or "" when none can; under CI (CI=true),
// where .ci/run installs python3-ezdxf, python3-matplotlib and
// fonts-liberation, none is a failure of tb.
func Matplotlib(tb testing.TB) string {
	tb.Helper()
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(cand); err == nil && exec.Command(p, "-c", hasLiberation).Run() == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("CI installs python3-ezdxf, python3-matplotlib and fonts-liberation (.ci/run), but no python3 has ezdxf and matplotlib with Liberation Sans")
	}
	tb.Log("no python3 with ezdxf and matplotlib with Liberation Sans (fonts-liberation); skipping the pictures")
	return ""
}

// hasLiberation exits 0 when ezdxf and matplotlib import and matplotlib
// has Liberation Sans to set Arial text in (see drawScript).
const hasLiberation = `import ezdxf
from matplotlib import font_manager
assert any(f.name == "Liberation Sans" for f in font_manager.fontManager.ttflist)`

// Picture is one picture for ezdxf's drawing add-on to draw: the model
// space of a DXF file, the part of the world in Window, on Width × Height
// pixels.
type Picture struct {
	// Name is what the picture's [Drawn] is known by.
	Name string `json:"name"`
	// DXF is the path of the DXF file.
	DXF string `json:"dxf"`
	// Window is the part of the world the picture shows, in drawing
	// units: min x, min y, max x, max y. It fills the picture; a window
	// of another shape than the picture is stretched.
	Window [4]float64 `json:"window"`
	// Width and Height are the picture's size in pixels.
	Width  int `json:"width"`
	Height int `json:"height"`
	// PNG is the path the picture is written to.
	PNG string `json:"png"`
}

// Drawn is what became of a [Picture].
type Drawn struct {
	Name string `json:"name"`
	// Error says why there is no picture: ezdxf could not read the file,
	// or drawing it failed outside any one entity.
	Error string `json:"error"`
	// Failed are the entities ezdxf failed to draw and left out of the
	// picture ("DIMENSION(#1F): More than 1 vertex required.").
	Failed []string `json:"failed"`
	// Seconds is the CPU time ezdxf took.
	Seconds float64 `json:"seconds"`
}

// drawScript reads one Picture as JSON a line from stdin and draws it
// with ezdxf's drawing add-on and matplotlib's Agg backend as ezdxf draws
// a model space by default (its Configuration.defaults(): linetypes,
// hatch patterns, lineweights of at least a pixel, text as paths), except
// that
//   - the background is white and everything is drawn black: a picture
//     compares where ink is, not its colour;
//   - XLINEs and RAYs reach across the window (ezdxf draws them 20 units
//     long by default; a CAD program draws them to the edge of the view);
//   - a DIMENSION without its block of geometry, which ezdxf's drawing
//     add-on leaves out and a CAD program regenerates, is first rendered
//     by ezdxf's own dimension renderer (DimStyleOverride.render);
//   - text in Arial is set in Liberation Sans, whose glyphs are as wide
//     as Arial's (matplotlib finds no Arial, which is not free, and
//     would set it in DejaVu Sans, an eighth wider, wrapping and placing
//     it otherwise than AutoCAD).
//
// An entity that fails to render or draw is left out and named; the
// picture is drawn all the same. Per picture it prints one Drawn as a
// JSON line.
//
// Matplotlib measures every patch to update the axes' data limits, which
// for text drawn as paths costs far more than drawing it; the window is
// set explicitly, so that bookkeeping is switched off.
const drawScript = `
import sys, json, math, time, logging
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import ezdxf
from ezdxf import recover
from ezdxf.addons.drawing import RenderContext, Frontend
from ezdxf.addons.drawing.config import Configuration
from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
from ezdxf.addons.drawing.properties import LayoutProperties

logging.disable(logging.WARNING)  # missing fonts, skipped entities
DPI = 96

# Arial is not free: text in Arial is set in its metric twin, Liberation
# Sans (else matplotlib sets it in DejaVu Sans, an eighth wider).
from dataclasses import replace
from matplotlib import font_manager
for f in list(font_manager.fontManager.ttflist):
    if f.name == "Liberation Sans":
        font_manager.fontManager.ttflist.append(replace(f, name="Arial"))

class Black(Frontend):
    """Draws in black and names, in self.failed, what it cannot draw."""
    def override_properties(self, entity, properties):
        properties.color = "#000000"
    def draw_entity(self, entity, properties):
        try:
            super().draw_entity(entity, properties)
        except Exception as e:
            self.failed.append("%s(#%s): %s" % (entity.dxftype(), entity.dxf.get("handle", "?"), e))

for line in sys.stdin:
    job = json.loads(line)
    t0 = time.process_time()
    out = {"name": job["name"]}
    try:
        try:
            doc = ezdxf.readfile(job["dxf"])
        except Exception:
            doc, _ = recover.readfile(job["dxf"])
        msp = doc.modelspace()
        failed = []
        for dim in msp.query("DIMENSION"):
            block = dim.dxf.get("geometry")
            if not block or block not in doc.blocks:
                try:
                    dim.override().render()
                except Exception as e:
                    failed.append("DIMENSION(#%s) render: %s" % (dim.dxf.handle, e))
        x0, y0, x1, y1 = job["window"]
        reach = 10 * (math.hypot(x1 - x0, y1 - y0) + math.hypot((x0 + x1) / 2, (y0 + y1) / 2))
        config = Configuration.defaults().with_changes(infinite_line_length=reach)
        w, h = job["width"], job["height"]
        # A hundredth of a pixel more, so that w/DPI*DPI is not truncated
        # to w-1.
        fig = plt.figure(figsize=((w + 0.01) / DPI, (h + 0.01) / DPI), dpi=DPI)
        ax = fig.add_axes((0, 0, 1, 1))
        ax._update_patch_limits = lambda patch: None
        ax._update_line_limits = lambda line: None
        ctx = RenderContext(doc)
        ctx.set_current_layout(msp)
        props = LayoutProperties.from_layout(msp)
        props.set_colors("#ffffff")
        front = Black(ctx, MatplotlibBackend(ax, adjust_figure=False), config=config)
        front.failed = failed
        front.draw_layout(msp, finalize=False, layout_properties=props)
        ax.set_aspect("auto")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        fig.savefig(job["png"], dpi=DPI, facecolor="#ffffff")
        plt.close(fig)
        out["failed"] = front.failed
    except Exception as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
        plt.close("all")
    out["seconds"] = round(time.process_time() - t0, 2)
    print(json.dumps(out), flush=True)
`

// Painter draws pictures with ezdxf's drawing add-on in one Python
// process, one after another, while the caller goes on: [Painter.Draw]
// queues a picture, the painter's callback hears of each as it is done,
// and [Painter.Close] waits for them all. It draws as the add-on does by
// default, except for black ink on white, XLINEs and RAYs across the
// window, and DIMENSIONs without a block rendered first (see drawScript).
type Painter struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *proctest.SyncBuffer
	done   chan struct{} // closed when stdout is read to its end
	err    error         // what read could not parse; read before done is closed, read after
}

// StartPainter starts py (see [Matplotlib]) drawing pictures; drawn is
// called with each picture's [Drawn] as soon as it is written, one at a
// time, from a goroutine of the painter's. The process is killed when tb
// ends if it was not closed.
func StartPainter(tb testing.TB, py string, drawn func(Drawn)) *Painter {
	tb.Helper()
	cmd := exec.Command(py, "-c", drawScript)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &Painter{cmd: cmd, stdin: stdin, stderr: &proctest.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start ezdxf's drawing add-on: %v", err)
	}
	go p.read(stdout, drawn)
	tb.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
			cmd.Wait()
		}
	})
	return p
}

// read hands what the script prints to drawn until it ends.
func (p *Painter) read(stdout io.Reader, drawn func(Drawn)) {
	defer close(p.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var d Drawn
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			if p.err == nil {
				p.err = fmt.Errorf("ezdxf's drawing add-on printed %q: %w", sc.Text(), err)
			}
			continue
		}
		drawn(d)
	}
}

// Draw queues pic.
func (p *Painter) Draw(pic Picture) error {
	line, err := json.Marshal(pic)
	if err != nil {
		return err
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("send %s to ezdxf's drawing add-on: %w (stderr: %s)", pic.Name, err, p.stderr.String())
	}
	return nil
}

// Close waits until every queued picture is drawn and its callback has
// returned.
func (p *Painter) Close() error {
	p.stdin.Close()
	<-p.done
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("ezdxf's drawing add-on: %w\n%s", err, strings.TrimSpace(p.stderr.String()))
	}
	return p.err
}
