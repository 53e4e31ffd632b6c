package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/cmd/cadctl/cadctltest"
)

func TestMain(m *testing.M) { os.Exit(cadctltest.Main(m)) }

// cleanupResult is the part of testdata/cleanup.json's batch result the
// tests check: its last step deletes the layer "scratch", which holds two
// circles, and needs approval.
type cleanupResult struct {
	OK          bool   `json:"ok"`
	Status      string `json:"status"`
	OperationID string `json:"operation_id"`
	Results     []struct {
		I      int    `json:"i"`
		Tool   string `json:"tool"`
		Status string `json:"status"`
		Result struct {
			Count int `json:"count"`
		} `json:"result"`
		Error *struct {
			Kind string `json:"kind"`
		} `json:"error"`
	} `json:"results"`
}

func parseCleanup(t *testing.T, res cadctltest.Result) cleanupResult {
	t.Helper()
	var r cleanupResult
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil || len(r.Results) != 5 {
		t.Fatalf("--json output does not parse as the batch's result (%v):\n%s", err, res)
	}
	return r
}

func createDocument(t *testing.T, s *cadctltest.Services, name string) string {
	t.Helper()
	res := s.Cadctl(t, "doc", "create", "--name", name, "--json")
	var doc struct {
		DocumentID string `json:"document_id"`
		Name       string `json:"name"`
	}
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &doc) != nil || doc.DocumentID == "" || doc.Name != name {
		t.Fatalf("cadctl doc create: %s", res)
	}
	return doc.DocumentID
}

func entityCount(t *testing.T, s *cadctltest.Services, doc string) int {
	t.Helper()
	res := s.Cadctl(t, "doc", "info", doc, "--json")
	var info struct {
		EntityCount *int `json:"entity_count"`
	}
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &info) != nil || info.EntityCount == nil {
		t.Fatalf("cadctl doc info: %s", res)
	}
	return *info.EntityCount
}

// TestCadctl drives cadctl against a running engine and gateway: status,
// the tool catalog, a document, a batch whose destructive step is approved
// with --yes, the operation record, and exports to SVG and DXF.
func TestCadctl(t *testing.T) {
	s := cadctltest.Start(t)

	res := s.Cadctl(t, "status")
	if res.Code != 0 || !strings.Contains(res.Stdout, "engine  ready") || !strings.Contains(res.Stdout, "gateway gw-") {
		t.Errorf("cadctl status: %s", res)
	}
	res = s.Cadctl(t, "tools")
	if res.Code != 0 || !strings.Contains(res.Stdout, "entity_delete_many") || !strings.Contains(res.Stdout, "destructive") {
		t.Errorf("cadctl tools: %s", res)
	}
	res = s.Cadctl(t, "tools", "entity_create_circle", "--json")
	var circle struct {
		Name        string `json:"name"`
		InputSchema struct {
			Required []string `json:"required"`
		} `json:"input_schema"`
	}
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &circle) != nil || circle.Name != "entity_create_circle" || len(circle.InputSchema.Required) != 3 {
		t.Errorf("cadctl tools entity_create_circle --json: %s", res)
	}

	doc := createDocument(t, s, "e2e")
	res = s.Cadctl(t, "batch", "testdata/cleanup.json", "--document", doc, "--yes", "--json")
	if res.Code != 0 {
		t.Fatalf("cadctl batch --yes: %s", res)
	}
	r := parseCleanup(t, res)
	if last := r.Results[4]; !r.OK || r.Status != "completed" || last.Status != "ok" || last.Result.Count != 2 {
		t.Errorf("batch with --yes = %+v, want completed with 2 entities deleted", r)
	}
	if n := entityCount(t, s, doc); n != 1 {
		t.Errorf("entities after the approved deletion = %d, want 1", n)
	}

	res = s.Cadctl(t, "op", r.OperationID, "--json")
	var op struct {
		OperationID string `json:"operation_id"`
		DocumentID  string `json:"document_id"`
		Status      string `json:"status"`
	}
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &op) != nil || op.OperationID != r.OperationID || op.DocumentID != doc || op.Status != "succeeded" {
		t.Errorf("cadctl op %s --json: %s\nwant the succeeded batch on %s", r.OperationID, res, doc)
	}

	dir := t.TempDir()
	svg, dxf := filepath.Join(dir, "e2e.svg"), filepath.Join(dir, "e2e.dxf")
	if res := s.Cadctl(t, "export", doc, "--format", "svg", "-o", svg); res.Code != 0 {
		t.Fatalf("cadctl export svg: %s", res)
	}
	if res := s.Cadctl(t, "export", doc, "-o", dxf); res.Code != 0 {
		t.Fatalf("cadctl export dxf: %s", res)
	}
	svgData, _ := os.ReadFile(svg)
	if !strings.HasPrefix(string(svgData), "<?xml") || !strings.Contains(string(svgData), "<line ") || strings.Contains(string(svgData), "<circle ") {
		t.Errorf("exported SVG is not the one line left:\n%s", svgData)
	}
	dxfData, _ := os.ReadFile(dxf)
	if !strings.Contains(string(dxfData), "SECTION") || !strings.Contains(string(dxfData), "LINE") {
		t.Errorf("exported DXF has no LINE entity:\n%.400s", dxfData)
	}
	cadctltest.AuditDXF(t, string(dxfData))

	res = s.Cadctl(t, "doc", "list")
	if res.Code != 0 || !strings.Contains(res.Stdout, doc) {
		t.Errorf("cadctl doc list: %s\nwant %s listed", res, doc)
	}
}

// TestCadctlNo checks that --no denies the destructive step: it fails with
// kind denied, and what it would have deleted stays.
func TestCadctlNo(t *testing.T) {
	s := cadctltest.Start(t)
	doc := createDocument(t, s, "denied")
	res := s.Cadctl(t, "batch", "testdata/cleanup.json", "--document", doc, "--no", "--json")
	if res.Code != 1 {
		t.Fatalf("cadctl batch --no: %s\nwant exit 1", res)
	}
	r := parseCleanup(t, res)
	if last := r.Results[4]; r.OK || last.Status != "error" || last.Error == nil || last.Error.Kind != "denied" {
		t.Errorf("batch with --no = %+v, want step 4 failed with kind denied", r)
	}
	if n := entityCount(t, s, doc); n != 3 {
		t.Errorf("entities after the denied deletion = %d, want 3", n)
	}
}

// TestCadctlSummary checks the readable summary of a batch (no --json).
func TestCadctlSummary(t *testing.T) {
	s := cadctltest.Start(t)
	res := s.Cadctl(t, "batch", "testdata/cleanup.json", "--yes")
	if res.Code != 0 {
		t.Fatalf("cadctl batch: %s", res)
	}
	for _, want := range []string{"completed: 5 executed, 5 ok, 0 failed, 0 skipped", "entity_delete_many", "atomicity: on_error stop"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Stdout)
		}
	}
	if !strings.Contains(res.Stderr, "created document doc-") || !strings.Contains(res.Stderr, "approval: entity_delete_many") {
		t.Errorf("stderr lacks the created document or the approval:\n%s", res.Stderr)
	}
}
