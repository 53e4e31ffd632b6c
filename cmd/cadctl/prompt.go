package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// prompter answers the engine's server requests: at the terminal when
// cadctl runs interactively, or unattended for approvals with --yes/--no.
type prompter struct {
	con *console
	// interactive is whether questions may be asked at the terminal.
	interactive bool
	// decision answers every approval unattended: "approve" (--yes),
	// "deny" (--no) or "" to ask.
	decision string
	// turn is held by the question on screen: one at a time.
	turn chan struct{}
}

func newPrompter(con *console, interactive bool, decision string) *prompter {
	return &prompter{con: con, interactive: interactive, decision: decision, turn: make(chan struct{}, 1)}
}

// methods are the server requests the prompter answers, for the session's
// declared capabilities.
func (p *prompter) methods() []string {
	var ms []string
	if p.interactive || p.decision != "" {
		ms = append(ms, gatewayv1.MethodApproval)
	}
	if p.interactive {
		ms = append(ms, gatewayv1.MethodPickPoint, gatewayv1.MethodPickEntities)
	}
	return ms
}

// approvalPolicy is the session's policy: destructive steps ask when
// someone (or --yes/--no) can answer.
func (p *prompter) approvalPolicy() string {
	if p.interactive || p.decision != "" {
		return "destructive"
	}
	return "none"
}

type approvalParams struct {
	OperationID string `json:"operation_id"`
	Tool        string `json:"tool"`
	Summary     string `json:"summary"`
	Affected    struct {
		Count   int64    `json:"count"`
		Handles []string `json:"handles"`
	} `json:"affected"`
}

type pickPointParams struct {
	Prompt string `json:"prompt"`
	Base   *struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	} `json:"base"`
}

type pickEntitiesParams struct {
	Prompt string   `json:"prompt"`
	Filter []string `json:"filter"`
	Max    int      `json:"max"`
}

// answer answers one server request; it is clientOptions.Answer.
func (p *prompter) answer(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case gatewayv1.MethodApproval:
		var params approvalParams
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
		}
		return p.approval(ctx, params)
	case gatewayv1.MethodPickPoint:
		var params pickPointParams
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
		}
		return p.pickPoint(ctx, params)
	case gatewayv1.MethodPickEntities:
		var params pickEntitiesParams
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
		}
		return p.pickEntities(ctx, params)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "cadctl does not answer "+method)
}

func (p *prompter) approval(ctx context.Context, params approvalParams) (any, error) {
	what := describeApproval(params)
	if p.decision != "" {
		flag := map[string]string{"approve": "--yes", "deny": "--no"}[p.decision]
		p.con.printf("approval: %s: %s (%s)", what, pastTense(p.decision), flag)
		return map[string]string{"decision": p.decision}, nil
	}
	if !p.interactive {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no terminal to ask for approval; use --yes or --no")
	}
	decision, err := p.ask(ctx, "approval: "+what+"\n  Approve? [y/N] ", func(line string) (any, error) {
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return "approve", nil
		case "", "n", "no":
			return "deny", nil
		}
		return nil, errors.New("answer y or n")
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"decision": decision}, nil
}

func describeApproval(params approvalParams) string {
	var b strings.Builder
	b.WriteString(params.Tool)
	if params.Summary != "" {
		b.WriteString(": " + params.Summary)
	}
	if n := params.Affected.Count; n > 0 || len(params.Affected.Handles) > 0 {
		fmt.Fprintf(&b, " (%d %s", n, plural(int(n), "entity", "entities"))
		if hs := params.Affected.Handles; len(hs) > 0 {
			if len(hs) > 8 {
				hs = append(hs[:8:8], "…")
			}
			b.WriteString(": " + strings.Join(hs, " "))
		}
		b.WriteString(")")
	}
	if params.OperationID != "" {
		b.WriteString(" [" + params.OperationID + "]")
	}
	return b.String()
}

func pastTense(decision string) string {
	if decision == "approve" {
		return "approved"
	}
	return "denied"
}

var numberSplit = regexp.MustCompile(`[\s,;]+`)

func (p *prompter) pickPoint(ctx context.Context, params pickPointParams) (any, error) {
	q := "pick.point: " + params.Prompt
	if params.Base != nil {
		q += fmt.Sprintf(" (from %s,%s)", fmtNum(params.Base.X), fmtNum(params.Base.Y))
	}
	q += "\n  x,y> "
	pt, err := p.ask(ctx, q, func(line string) (any, error) {
		fields := numberSplit.Split(strings.TrimSpace(line), -1)
		if len(fields) != 2 {
			return nil, errors.New("type two numbers, x,y")
		}
		x, errX := strconv.ParseFloat(fields[0], 64)
		y, errY := strconv.ParseFloat(fields[1], 64)
		if errX != nil || errY != nil {
			return nil, errors.New("type two numbers, x,y")
		}
		return map[string]float64{"x": x, "y": y}, nil
	})
	if err != nil {
		return nil, err
	}
	return pt, nil
}

func (p *prompter) pickEntities(ctx context.Context, params pickEntitiesParams) (any, error) {
	q := "pick.entities: " + params.Prompt
	if len(params.Filter) > 0 {
		q += " (" + strings.Join(params.Filter, ", ") + ")"
	}
	if params.Max > 0 {
		q += fmt.Sprintf(" (at most %d)", params.Max)
	}
	q += "\n  handles> "
	hs, err := p.ask(ctx, q, func(line string) (any, error) {
		line = strings.TrimSpace(line)
		handles := []string{}
		if line != "" {
			for _, h := range numberSplit.Split(line, -1) {
				h = strings.ToUpper(h)
				if _, err := strconv.ParseUint(h, 16, 64); err != nil {
					return nil, fmt.Errorf("%q is not a handle (hex digits)", h)
				}
				handles = append(handles, h)
			}
		}
		if params.Max > 0 && len(handles) > params.Max {
			return nil, fmt.Errorf("at most %d", params.Max)
		}
		return handles, nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"handles": hs}, nil
}

// errDeclined answers a question the user left with end of input.
var errDeclined = jsonrpc.NewError(jsonrpc.CodeRequestCancelled, "no answer: the input ended")

// ask shows question and reads lines until parse accepts one. It waits
// for the question before it to be answered; a withdrawn request (ctx
// cancelled) stops asking.
func (p *prompter) ask(ctx context.Context, question string, parse func(string) (any, error)) (any, error) {
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-p.turn }()
	p.con.discardTyped()
	for {
		p.con.prompt(question)
		line, err := p.con.readLine(ctx)
		if err != nil {
			var w *withdrawnError
			switch {
			case errors.As(err, &w):
				p.con.printf("\n  (withdrawn by the engine: %s)", w.reason)
			case errors.Is(err, io.EOF):
				p.con.printf("\n  (no answer: input ended)")
				return nil, errDeclined
			default:
				p.con.printf("")
			}
			return nil, err
		}
		v, err := parse(line)
		if err == nil {
			return v, nil
		}
		p.con.printf("  %v", err)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
