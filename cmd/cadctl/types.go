package main

import "encoding/json"

// The shapes below are cadctl's reading of results whose contracts are in
// proto/ (see gen/cad/gateway/v1/openrpc.json). cadctl decodes them
// leniently, keeping only what it prints, so that it keeps working against
// a newer gateway that adds fields; --json prints the result exactly as
// received.

// batchResult is the result of cad.batch.
type batchResult struct {
	OK          bool              `json:"ok"`
	Status      string            `json:"status"`
	OperationID string            `json:"operation_id"`
	Counts      counts            `json:"counts"`
	Results     []stepResult      `json:"results"`
	Bindings    map[string]string `json:"bindings"`
	Revision    *revisionReport   `json:"revision"`
	Atomicity   *atomicity        `json:"atomicity"`
	Replayed    bool              `json:"replayed"`
	Error       *toolError        `json:"error"`
	Errors      []toolError       `json:"errors"`
	Preview     *preview          `json:"preview"`
}

type counts struct {
	Executed  int `json:"executed"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
}

type stepResult struct {
	I           int             `json:"i"`
	Tool        string          `json:"tool"`
	Status      string          `json:"status"`
	OperationID string          `json:"operation_id"`
	Handle      *string         `json:"handle"`
	Result      json.RawMessage `json:"result"`
	Error       *toolError      `json:"error"`
}

// toolError is a typed error: kind is one of DESIGN §3's error kinds.
type toolError struct {
	Kind            string   `json:"kind"`
	Message         string   `json:"message"`
	OperationID     string   `json:"operation_id"`
	Path            string   `json:"path"`
	Reason          string   `json:"reason"`
	Capability      string   `json:"capability"`
	CurrentRevision *int64   `json:"current_revision"`
	MovedHandles    []string `json:"moved_handles"`
	RetryAfterMs    *int64   `json:"retry_after_ms"`
	Step            *int     `json:"step"`
}

type revisionReport struct {
	Checked     int64    `json:"checked"`
	After       int64    `json:"after"`
	Interleaved []string `json:"interleaved"`
}

type atomicity struct {
	Mode        string   `json:"mode"`
	Guarantee   string   `json:"guarantee"`
	Transaction bool     `json:"transaction"`
	RolledBack  bool     `json:"rolled_back"`
	Verified    bool     `json:"verified"`
	Note        string   `json:"note"`
	Undone      []string `json:"undone"`
}

type preview struct {
	DocumentID    string `json:"document_id"`
	Revision      int64  `json:"revision"`
	Preconditions []struct {
		Handle      string `json:"handle"`
		Fingerprint string `json:"fingerprint"`
	} `json:"preconditions"`
	Steps []struct {
		I           int             `json:"i"`
		Tool        string          `json:"tool"`
		Args        json.RawMessage `json:"args"`
		Bind        string          `json:"bind"`
		Destructive bool            `json:"destructive"`
	} `json:"steps"`
}

// documentInfo is a document's info (document.create, document.get).
type documentInfo struct {
	DocumentID   string  `json:"document_id"`
	Name         string  `json:"name"`
	Units        string  `json:"units"`
	Revision     int64   `json:"revision"`
	ContentHash  string  `json:"content_hash"`
	EntityCount  int64   `json:"entity_count"`
	CurrentLayer string  `json:"current_layer"`
	Layers       []layer `json:"layers"`
}

type layer struct {
	Name        string `json:"name"`
	Color       int    `json:"color"`
	Linetype    string `json:"linetype"`
	Lineweight  int    `json:"lineweight"`
	On          bool   `json:"on"`
	Frozen      bool   `json:"frozen"`
	Locked      bool   `json:"locked"`
	EntityCount int64  `json:"entity_count"`
}

// tool is one entry of tools.list.
type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
	Annotations  struct {
		ReadOnly    bool `json:"read_only"`
		Destructive bool `json:"destructive"`
		Idempotent  bool `json:"idempotent"`
		Batchable   bool `json:"batchable"`
		Interactive bool `json:"interactive"`
	} `json:"annotations"`
}

// operation is a recorded operation (operations.get).
type operation struct {
	OperationID    string       `json:"operation_id"`
	Principal      string       `json:"principal"`
	Kind           string       `json:"kind"`
	DocumentID     string       `json:"document_id"`
	Status         string       `json:"status"`
	CommittedSteps []int        `json:"committed_steps"`
	Result         *batchResult `json:"result"`
	StartedAt      string       `json:"started_at"`
	FinishedAt     string       `json:"finished_at"`
	Revision       int64        `json:"revision"`
}

// systemStatus is the result of system.status.
type systemStatus struct {
	Engine struct {
		Version          string      `json:"version"`
		Store            string      `json:"store"`
		Epoch            string      `json:"epoch"`
		Documents        int64       `json:"documents"`
		Sessions         int64       `json:"sessions"`
		Ready            bool        `json:"ready"`
		RecentOperations []operation `json:"recent_operations"`
	} `json:"engine"`
	Gateway struct {
		GatewayID   string `json:"gateway_id"`
		Version     string `json:"version"`
		Connections int64  `json:"connections"`
		Ready       bool   `json:"ready"`
	} `json:"gateway"`
}

// exportResult is the result of document.export.
type exportResult struct {
	Format    string `json:"format"`
	MediaType string `json:"media_type"`
	Content   string `json:"content"`
}
