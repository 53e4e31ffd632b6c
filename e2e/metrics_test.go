package e2e_test

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// metricsAnnounce is the engine's line naming its metrics address.
var metricsAnnounce = regexp.MustCompile(`(?m)^cadengine metrics on http://(\S+)/metrics$`)

// TestTwoEnginesMetricsByDefault starts two engines on one host with the
// default --metrics-listen: both start (their metrics addresses do not
// clash), each prints its own, and each serves the Go runtime and process
// metrics there; the gateway's /metrics has them too.
func TestTwoEnginesMetricsByDefault(t *testing.T) {
	var addrs []string
	for i := range 2 {
		e := proctest.StartBinary(t, proctest.EngineAnnounce, proctest.Bin("cadengine"),
			"--listen", "127.0.0.1:0", "--store", "sqlite:"+filepath.Join(t.TempDir(), "engine.db"))
		m := metricsAnnounce.FindStringSubmatch(e.Stdout())
		if m == nil {
			t.Fatalf("engine %d printed %q, want a line matching %s", i, e.Stdout(), metricsAnnounce)
		}
		addrs = append(addrs, m[1])
		text := scrape(t, "http://"+m[1]+"/metrics")
		for _, series := range []string{"go_goroutines ", "go_memstats_heap_alloc_bytes ", "process_resident_memory_bytes ", "process_open_fds "} {
			if !strings.Contains(text, "\n"+series) {
				t.Errorf("engine %d /metrics lacks %s", i, series)
			}
		}
	}
	if addrs[0] == addrs[1] {
		t.Errorf("both engines serve metrics on %s", addrs[0])
	}
	g := proctest.StartGateway(t, "127.0.0.1:0", "127.0.0.1:1")
	if text := scrape(t, "http://"+g.Addr+"/metrics"); !strings.Contains(text, "\ngo_goroutines ") || !strings.Contains(text, "\nprocess_resident_memory_bytes ") {
		t.Errorf("gateway /metrics lacks the runtime and process metrics:\n%s", text)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %s, %v", url, resp.Status, err)
	}
	return string(body)
}
