package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bench"
)

// TestMain lets the test binary serve as ExecHolder's child process.
func TestMain(m *testing.M) {
	for i, a := range os.Args {
		if a == "--"+bench.HolderFlag && i+3 < len(os.Args) && os.Args[i+2] == "--"+bench.GatewayFlag {
			n, err := strconv.Atoi(os.Args[i+1])
			if err == nil {
				err = bench.ServeHolder(context.Background(), os.Args[i+3], n, os.Stdin, os.Stdout)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestCadbenchQuick runs every row once at tiny sizes: it proves that the
// tool runs and reports, and asserts nothing about speed.
func TestCadbenchQuick(t *testing.T) {
	sizes := bench.TinySizes()
	rep, err := bench.Run(context.Background(), bench.Config{Sizes: &sizes, Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := len(rep.Rows), len(bench.RowNames()); got != want {
		t.Fatalf("Run made %d rows, want %d", got, want)
	}
	for _, row := range rep.Rows {
		if row.Error != "" {
			t.Errorf("row %s: %s", row.Name, row.Error)
			continue
		}
		if row.Skipped != "" {
			t.Logf("row %s skipped: %s", row.Name, row.Skipped)
			continue
		}
		if len(row.Checks) == 0 {
			t.Errorf("row %s has no checks", row.Name)
		}
		for _, c := range row.Checks {
			if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) || c.Value <= 0 || c.Key == "" {
				t.Errorf("row %s check %q = %v (key %q), want a positive number", row.Name, c.Measure, c.Value, c.Key)
			}
		}
		for _, s := range []*bench.Side{row.Baseline, row.Subject} {
			if s != nil && (s.N == 0 || s.P50 <= 0 || s.P99 < s.P50 || s.Throughput <= 0) {
				t.Errorf("row %s side %q = %+v, want samples with p99 ≥ p50 > 0", row.Name, s.Name, *s)
			}
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, name := range bench.RowNames() {
		if !strings.Contains(text.String(), name) {
			t.Errorf("text report lacks row %s:\n%s", name, text.String())
		}
	}
	t.Logf("\n%s", text.String())

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back bench.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON report does not decode: %v", err)
	}
	if back.Mode != "custom" || len(back.Rows) != len(rep.Rows) || back.Scaled == "" {
		t.Errorf("JSON report = mode %q, %d rows, scaled %q; want custom, %d rows, a scaling note", back.Mode, len(back.Rows), back.Scaled, len(rep.Rows))
	}
}

// TestRunOnly checks row selection by name and by group.
func TestRunOnly(t *testing.T) {
	sizes := bench.TinySizes()
	rep, err := bench.Run(context.Background(), bench.Config{Sizes: &sizes, Only: []string{"gateway-hop", "replay"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var names []string
	for _, row := range rep.Rows {
		names = append(names, row.Name)
	}
	if got, want := strings.Join(names, ","), "gateway-hop/1,gateway-hop/64,replay"; got != want {
		t.Errorf("Run(Only gateway-hop, replay) ran %s, want %s", got, want)
	}
	if _, err := bench.Run(context.Background(), bench.Config{Only: []string{"nonesuch"}}); err == nil {
		t.Errorf("Run(Only nonesuch) = nil error, want one")
	}
}

// TestIdleSessionsInChild holds the idle sessions in a child process (this
// test binary, see TestMain), as cadbench does.
func TestIdleSessionsInChild(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	sizes := bench.TinySizes()
	rep, err := bench.Run(context.Background(), bench.Config{
		Sizes: &sizes, Only: []string{"idle-sessions/1k"}, Holder: bench.ExecHolder(os.Args[0], "-test.run=^$"),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	row := rep.Rows[0]
	if row.Error != "" || row.Skipped != "" {
		t.Fatalf("idle-sessions/1k: error %q, skipped %q", row.Error, row.Skipped)
	}
	if !strings.Contains(strings.Join(row.Notes, " "), "child process") {
		t.Errorf("idle-sessions/1k notes = %q, want the clients held in a child process", row.Notes)
	}
}

// TestReportNoGoal checks that a check without a goal reads as what it
// is: neither a PASS nor a MISS.
func TestReportNoGoal(t *testing.T) {
	rep := &bench.Report{Mode: "full", Rows: []*bench.Row{{
		Name:   "corpus-import",
		Checks: []bench.Check{{Key: "speed-up", Measure: "speed-up", Value: 3.5, Unit: "x"}},
	}}}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	line := strings.Fields(strings.Split(text.String(), "\n")[3])
	if got, want := strings.Join(line, " "), "corpus-import speed-up 3.50× none INFO"; got != want {
		t.Errorf("the check's line = %q, want %q\n%s", got, want, text.String())
	}
}

// ExampleReport_WriteText shows the report's layout: the checks against
// their goals, then each side's figures, then notes.
func ExampleReport_WriteText() {
	rep := &bench.Report{
		Mode: "full", Started: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Elapsed: 95 * time.Second,
		Machine: bench.Machine{OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2, Go: "go1.26"},
		Rows: []*bench.Row{{
			Name: "replay", Title: "session.resume vs one tools.call", Size: "100 open requests, 512 events",
			Baseline: &bench.Side{Name: "tools.call", Unit: "call", N: 200, P50: 180 * time.Microsecond, P99: 400 * time.Microsecond, Throughput: 5200, AllocsPerOp: 650, ReadsPerOp: 9, WritesPerOp: 4},
			Subject:  &bench.Side{Name: "session.resume", Unit: "call", N: 200, P50: 720 * time.Microsecond, P99: 2 * time.Millisecond, Throughput: 1300, AllocsPerOp: 9100},
			Checks:   []bench.Check{{Key: "p50-ratio", Measure: "p50, resume ÷ call", Value: 4, Unit: "x", Goal: bench.Goal{Op: "<", Value: 5}, Pass: true}},
			Notes:    []string{"One resume result is 101 KiB of JSON."},
		}},
	}
	rep.WriteText(os.Stdout)
	// Output:
	// cadbench full run, 2026-11-30, linux/amd64, 2 CPUs (GOMAXPROCS 2), go1.26; wall time 1m35s
	//
	// ROW     MEASURE             VALUE  GOAL  RESULT
	// replay  p50, resume ÷ call  4.00×  < 5×  PASS
	//
	// ROW     SIZE                           SIDE      WHAT            N    P50    P99     THROUGHPUT    ALLOCS/OP  READS + WRITES/OP
	// replay  100 open requests, 512 events  baseline  tools.call      200  180µs  400µs   5.20k call/s  650        9.0 + 4.0
	//                                        subject   session.resume  200  720µs  2.00ms  1.30k call/s  9100       -
	//
	// Notes
	//
	// replay — session.resume vs one tools.call (100 open requests, 512 events)
	//     · One resume result is 101 KiB of JSON.
}
