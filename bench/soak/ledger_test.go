package soak

import (
	"context"
	"testing"

	"github.com/cadbridge/cadbridge/internal/stacktest"
)

// TestCheckFinds: the check counts an answered batch the journal lacks as
// lost, a document with entities its journaled steps did not make as run
// twice, and passes a batch that ran as answered.
func TestCheckFinds(t *testing.T) {
	st := stacktest.StartTB(t, stacktest.Options{})
	ctx := context.Background()
	c, err := dial(ctx, st.Gateway, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	s := &soak{gateway: st.Gateway, ledger: newLedger(), tally: newTally()}
	good, err := s.document(c, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, a, err := s.send(c, "test", points(good, 4)); err != nil || a.Status != "completed" {
		t.Fatalf("send = %+v, %v, want completed", a, err)
	}
	if ch, err := s.ledger.check(ctx, c); err != nil || ch.Lost != 0 || ch.Twice != 0 || ch.Acked != 1 || ch.Documents != 1 {
		t.Fatalf("check of a batch that ran = %+v, %v, want one acknowledged, nothing lost or twice", ch, err)
	}

	s.ledger.sent("soak-never-journaled", good, []int{1})
	s.ledger.ops["soak-never-journaled"].acked = true
	if ch, _ := s.ledger.check(ctx, c); ch.Lost != 1 || ch.Twice != 0 {
		t.Errorf("check with an answered batch the journal lacks = %+v, want 1 lost", ch)
	}
	delete(s.ledger.ops, "soak-never-journaled")

	// An entity made behind the ledger's back: as if a batch ran twice.
	if err := c.call(ctx, "tools.call", map[string]any{"document_id": good, "tool": "entity_create_point", "args": map[string]any{"x": 0, "y": 0}}, nil); err != nil {
		t.Fatal(err)
	}
	if ch, _ := s.ledger.check(ctx, c); ch.Twice != 1 || ch.Lost != 0 {
		t.Errorf("check of a document with an extra entity = %+v, want 1 run twice", ch)
	}
}
