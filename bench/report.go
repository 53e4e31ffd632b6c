package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the result of a cadbench run.
type Report struct {
	// Mode is "full", "quick" or "custom" (sizes set by the caller).
	Mode string `json:"mode"`
	// Scaled says how the sizes differ from the full run; empty for a full
	// run.
	Scaled string `json:"scaled,omitempty"`
	// Started is when the run began.
	Started time.Time `json:"started"`
	// Elapsed is the wall time of the whole run.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Machine describes where it ran.
	Machine Machine `json:"machine"`
	// Rows are the comparisons, in run order.
	Rows []*Row `json:"rows"`
}

// Machine describes the host of a run.
type Machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPU        string `json:"cpu,omitempty"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
}

// Row is one side-by-side comparison: a baseline and a subject measured
// in the same process, and the checks of the subject against its goals.
type Row struct {
	// Name identifies the row ("gateway-hop/64"); --only takes it.
	Name string `json:"name"`
	// Title says what is compared.
	Title string `json:"title"`
	// Size states the sizes used, and how a quick run scaled them.
	Size string `json:"size"`
	// Baseline and Subject are the two sides; either may be nil when a
	// row measures something other than latency (idle sessions).
	Baseline *Side `json:"baseline,omitempty"`
	Subject  *Side `json:"subject,omitempty"`
	// Checks are the measures held against the row's goals.
	Checks []Check `json:"checks,omitempty"`
	// Notes qualify the numbers: what is counted, what limits them.
	Notes []string `json:"notes,omitempty"`
	// Skipped says why the row did not run; Error why it failed.
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Elapsed is the row's wall time, setup included.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Side is what one side of a row measured. Latencies are per op, taken
// in the measured process (the client's view); Throughput is ops per
// second of time spent in ops (sequential sides) or of block wall time
// (concurrent sides).
type Side struct {
	Name       string        `json:"name"`
	Unit       string        `json:"unit"`
	N          int           `json:"n"`
	P50        time.Duration `json:"p50_ns"`
	P99        time.Duration `json:"p99_ns"`
	Throughput float64       `json:"throughput_per_s"`
	// AllocsPerOp counts heap objects allocated in the whole process per
	// op: client, gateway and engine alike when they share the process.
	AllocsPerOp float64 `json:"allocs_per_op"`
	// ReadsPerOp and WritesPerOp count read and write system calls (of
	// files and sockets) in the whole process per op, where the kernel
	// tells (Linux).
	ReadsPerOp  float64 `json:"reads_per_op,omitempty"`
	WritesPerOp float64 `json:"writes_per_op,omitempty"`
}

// Check is one measure of a row against its goal.
type Check struct {
	// Key names the measure briefly ("p50-ratio"); benchmarks report it
	// as a metric unit.
	Key string `json:"key"`
	// Measure says what Value is and which way the ratio is taken
	// ("p50 latency, subject ÷ baseline").
	Measure string `json:"measure"`
	// Value is the measured ratio (Unit "x") or quantity.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Goal is what Value should meet.
	Goal Goal `json:"goal"`
	// Pass says whether it did. A miss is reported, never an error.
	Pass bool `json:"pass"`
}

// Goal is a bound on a check's value. The zero Goal is none: its check is
// for reading, neither a PASS nor a MISS (see info).
type Goal struct {
	// Op is "<=", "<", ">=" or ">"; empty for no goal.
	Op    string  `json:"op"`
	Value float64 `json:"value"`
}

func (g Goal) met(v float64) bool {
	switch g.Op {
	case "<=":
		return v <= g.Value
	case "<":
		return v < g.Value
	case ">=":
		return v >= g.Value
	case ">":
		return v > g.Value
	}
	return false
}

// String writes the goal for people: "≤ 1.5×", "≤ 64 KiB", "none".
func (g Goal) String(unit string) string {
	if g.Op == "" {
		return "none"
	}
	op := map[string]string{"<=": "≤", ">=": "≥"}[g.Op]
	if op == "" {
		op = g.Op
	}
	v := strconv.FormatFloat(g.Value, 'g', -1, 64)
	if unit == "x" {
		return op + " " + v + "×"
	}
	return op + " " + v + " " + unit
}

// check makes a check of value against goal.
func check(key, measure string, value float64, unit string, goal Goal) Check {
	c := Check{Key: key, Measure: measure, Value: value, Unit: unit, Goal: goal}
	if !math.IsNaN(value) && !math.IsInf(value, 0) {
		c.Pass = goal.met(value)
	}
	return c
}

// info makes a check with no goal: a measure reported for reading, with
// result INFO.
func info(key, measure string, value float64, unit string) Check {
	return Check{Key: key, Measure: measure, Value: value, Unit: unit}
}

// ratio is a / b, NaN when b is zero.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// Failed reports the rows that ended with an error.
func (r *Report) Failed() []*Row {
	var out []*Row
	for _, row := range r.Rows {
		if row.Error != "" {
			out = append(out, row)
		}
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as two aligned tables (the checks, then
// each side's figures) and the rows' notes.
func (r *Report) WriteText(w io.Writer) error {
	return r.write(w, false)
}

// WriteMarkdown writes the report as Markdown tables, for the README.
func (r *Report) WriteMarkdown(w io.Writer) error {
	return r.write(w, true)
}

func (r *Report) write(w io.Writer, md bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cadbench %s run, %s, %s/%s, %d CPUs (GOMAXPROCS %d)%s, %s; wall time %s\n",
		r.Mode, r.Started.UTC().Format("2006-01-02"), r.Machine.OS, r.Machine.Arch, r.Machine.CPUs, r.Machine.GOMAXPROCS,
		cpuSuffix(r.Machine.CPU), r.Machine.Go, fmtDur(r.Elapsed.Round(time.Second)))
	if r.Scaled != "" {
		fmt.Fprintf(&b, "QUICK: %s\n", r.Scaled)
	}
	b.WriteString("\n")
	t := newTable(&b, md)
	t.row("row", "measure", "value", "goal", "result")
	for _, row := range r.Rows {
		switch {
		case row.Error != "":
			t.row(row.Name, "error: "+row.Error, "", "", "ERROR")
		case row.Skipped != "":
			t.row(row.Name, "skipped: "+row.Skipped, "", "", "SKIP")
		}
		for _, c := range row.Checks {
			result := "MISS"
			switch {
			case c.Goal.Op == "":
				result = "INFO"
			case c.Pass:
				result = "PASS"
			}
			t.row(row.Name, c.Measure, fmtValue(c.Value, c.Unit), c.Goal.String(c.Unit), result)
		}
	}
	t.flush()
	b.WriteString("\n")
	t = newTable(&b, md)
	t.row("row", "size", "side", "what", "n", "p50", "p99", "throughput", "allocs/op", "reads + writes/op")
	for _, row := range r.Rows {
		name, size := row.Name, row.Size
		for _, s := range []struct {
			label string
			side  *Side
		}{{"baseline", row.Baseline}, {"subject", row.Subject}} {
			if s.side == nil {
				continue
			}
			t.row(name, size, s.label, s.side.Name, fmt.Sprint(s.side.N), fmtDur(s.side.P50), fmtDur(s.side.P99),
				fmtRate(s.side.Throughput, s.side.Unit), fmtAllocs(s.side.AllocsPerOp), fmtCalls(s.side.ReadsPerOp, s.side.WritesPerOp))
			if !md {
				name, size = "", ""
			}
		}
	}
	t.flush()
	notes := false
	for _, row := range r.Rows {
		if len(row.Notes) == 0 && row.Title == "" {
			continue
		}
		if !notes {
			if md {
				b.WriteString("\n**Notes**\n\n")
			} else {
				b.WriteString("\nNotes\n\n")
			}
			notes = true
		}
		if md {
			fmt.Fprintf(&b, "- **%s** — %s", row.Name, row.Title)
		} else {
			fmt.Fprintf(&b, "%s — %s", row.Name, row.Title)
		}
		var about []string
		if row.Size != "" {
			about = append(about, row.Size)
		}
		if row.Elapsed > 0 {
			about = append(about, "row took "+fmtDur(row.Elapsed.Round(time.Millisecond)))
		}
		if len(about) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(about, "; "))
		}
		b.WriteString("\n")
		for _, n := range row.Notes {
			if md {
				fmt.Fprintf(&b, "  - %s\n", n)
			} else {
				fmt.Fprintf(&b, "    · %s\n", n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func cpuSuffix(cpu string) string {
	if cpu == "" {
		return ""
	}
	return ", " + cpu
}

// table writes aligned text columns or a Markdown table.
type table struct {
	md     bool
	w      io.Writer
	tw     *tabwriter.Writer
	header bool
}

func newTable(w io.Writer, md bool) *table {
	t := &table{md: md, w: w}
	if !md {
		t.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	}
	return t
}

func (t *table) row(cells ...string) {
	if t.md {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(t.w, "| %s |\n", strings.Join(cells, " | "))
		if !t.header {
			t.header = true
			fmt.Fprintf(t.w, "|%s\n", strings.Repeat("---|", len(cells)))
		}
		return
	}
	if !t.header {
		t.header = true
		for i, c := range cells {
			cells[i] = strings.ToUpper(c)
		}
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() {
	if t.tw != nil {
		t.tw.Flush()
	}
}

// fmtValue formats a check's value: a ratio with about three significant
// digits and "×", or a quantity with its unit.
func fmtValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	if unit == "x" {
		return sig3(v) + "×"
	}
	return sig3(v) + " " + unit
}

func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// fmtDur formats a duration with about three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d)
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	case d < time.Minute:
		return sig3(float64(d)/1e9) + "s"
	default:
		return d.Round(time.Second).String()
	}
}

// fmtRate formats a throughput: "12.3k call/s".
func fmtRate(perSecond float64, unit string) string {
	if perSecond <= 0 {
		return "-"
	}
	switch {
	case perSecond >= 1e6:
		return sig3(perSecond/1e6) + "M " + unit + "/s"
	case perSecond >= 1e3:
		return sig3(perSecond/1e3) + "k " + unit + "/s"
	default:
		return sig3(perSecond) + " " + unit + "/s"
	}
}

// fmtCalls shows read and write system calls per op.
func fmtCalls(reads, writes float64) string {
	if reads == 0 && writes == 0 {
		return "-"
	}
	one := func(n float64) string {
		if n >= 100 {
			return fmtAllocs(n)
		}
		return fmt.Sprintf("%.1f", n)
	}
	return one(reads) + " + " + one(writes)
}

func fmtAllocs(n float64) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1e6:
		return sig3(n/1e6) + "M"
	case n >= 1e4:
		return sig3(n/1e3) + "k"
	default:
		return fmt.Sprintf("%.0f", n)
	}
}
