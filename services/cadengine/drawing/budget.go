package drawing

import (
	"context"
	"fmt"
	"math"
)

// Bounded work. A few kilobytes of DXF can describe 10^10 curves (blocks
// of ten inserts of blocks of ten inserts, ten deep), a grid of 10^5 ×
// 10^5 inserts, or a hatch pattern of 10^20 lines. Everything that
// expands inserts, grids and patterns — drawing, extents, explode,
// selection — counts what it would make in primitives ([Cost]) before it
// starts, and refuses past a [Budget]'s limit with a [*TooLargeError];
// while it works it spends from the budget, which also watches the call's
// context, so a cancelled call stops within a few thousand primitives.
// Extents never expand at all: an insert's extents come from its block's
// convex hull ([Insert.Bounds]).

// DefaultExpansionLimit is the number of primitives one call may expand
// unless configured otherwise (cadengine's --expansion-limit).
const DefaultExpansionLimit = 10_000_000

// TooLargeError is work past the expansion budget: what it would have
// needed, in primitives, and the limit.
type TooLargeError struct {
	Needed, Limit int64
}

// Error says how much was needed.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the drawing expands to %d primitives, more than the %d one call may draw (the engine's --expansion-limit): export or explode a part of it, or delete the nested or gridded inserts that multiply it", e.Needed, e.Limit)
}

// Budget is what one call may expand: a limit in primitives and the call's
// context. A nil *Budget is unlimited and never cancelled.
type Budget struct {
	ctx   context.Context
	limit int64
	spent int64
	check int64 // spent at which the context is checked next
	calls int   // Spend calls since the context was last checked
}

// checkEvery is how many primitives may be spent, or Spend called,
// between two looks at the context: a few milliseconds of drawing.
const checkEvery = 4096

// NewBudget is a budget of limit primitives (DefaultExpansionLimit when
// limit ≤ 0) for a call with context ctx.
func NewBudget(ctx context.Context, limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultExpansionLimit
	}
	return &Budget{ctx: ctx, limit: limit, check: checkEvery}
}

// Limit is the budget's limit in primitives (math.MaxInt64 for nil).
func (b *Budget) Limit() int64 {
	if b == nil {
		return math.MaxInt64
	}
	return b.limit
}

// Afford fails with a *TooLargeError when work of needed primitives does
// not fit in what is left, and with the context's error when the call
// has ended.
func (b *Budget) Afford(needed int64) error {
	if b == nil {
		return nil
	}
	if needed > b.limit-b.spent {
		return &TooLargeError{Needed: addSat(needed, b.spent), Limit: b.limit}
	}
	return b.ctx.Err()
}

// Spend takes n primitives from the budget; it fails as Afford does, and
// looks at the context every few thousand primitives.
func (b *Budget) Spend(n int64) error {
	if b == nil {
		return nil
	}
	if n > b.limit-b.spent {
		return &TooLargeError{Needed: addSat(n, b.spent), Limit: b.limit}
	}
	b.spent += n
	if b.calls++; b.spent >= b.check || b.calls >= checkEvery {
		b.check, b.calls = b.spent+checkEvery, 0
		return b.ctx.Err()
	}
	return nil
}

// Err is the call's context's error, if it has ended.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	return b.ctx.Err()
}

// Cost is the number of primitives drawing g makes: an insert's block's
// cost times its grid, a hatch's pattern lines (or its loops, when it is
// drawn solid), a polyline's pieces, and one for anything else.
// Saturates at math.MaxInt64.
func Cost(g Geometry) int64 {
	switch g := g.(type) {
	case Insert:
		if g.Def == nil {
			return 1
		}
		return max(1, mulSat(addSat(g.Def.cost, int64(len(g.Attribs))), g.Cells()))
	case Hatch:
		return g.cost()
	case Polyline:
		return int64(max(1, len(g.V)))
	case Spline:
		return 16 * int64(len(g.Control)) // about what its polyline has
	case Dimension:
		return g.Drawn.cost()
	case Foreign:
		return g.Drawn.cost()
	case Table:
		if g.Drawn != nil {
			return g.Drawn.cost()
		}
		return int64(len(g.Rows) + len(g.Columns) + 2 + len(g.Cells))
	}
	return 1
}

// CostOf is the cost of drawing every entity of es (see Cost).
func CostOf(es []*Entity) int64 {
	var n int64
	for _, e := range es {
		n = addSat(n, Cost(e.Geom))
	}
	return n
}

func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
