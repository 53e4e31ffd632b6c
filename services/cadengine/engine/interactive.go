package engine

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Steps that wait on the client: point_pick and entity_pick, which ask
// for input (server requests pick.point and pick.entities), and any step
// of a destructive tool when the caller's session has approval policy
// DESTRUCTIVE (server request approval). The running operation lets go of
// the document while it waits (run.suspend), after committing what it
// did, so others may read and write meanwhile; their commits are reported
// in revision.interleaved.

// maxAffected bounds the handles an approval request lists.
const maxAffected = 100

// ask sends a server request on behalf of the call's step.
func (c *call) ask(req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
	if c.r == nil {
		return nil, unsupported("server_request:"+req.Method, "%s needs a session whose client answers it", req.Method)
	}
	return c.r.ask(c.step, req)
}

// pointPick asks the client for a point.
func pointPick(c *call, a *enginev1.PointPickArgs) (*enginev1.PointPickResult, error) {
	ans, err := c.ask(&enginev1.ServerRequest{
		Method: gatewayv1.MethodPickPoint,
		Params: &enginev1.ServerRequest_PickPoint{PickPoint: &enginev1.PickPointParams{Prompt: a.GetPrompt(), Base: a.GetBase()}},
	})
	if err != nil {
		return nil, err
	}
	p := ans.GetPickPoint()
	switch {
	case p == nil:
		return nil, failed("the client answered pick.point with something else")
	case !geom.IsFinite(p.GetX()) || !geom.IsFinite(p.GetY()):
		return nil, failed("the client picked a point that is not finite")
	}
	return &enginev1.PointPickResult{X: p.GetX(), Y: p.GetY()}, nil
}

// entityPick asks the client for entities. The answer must name entities
// of the document (of the requested types, at most max of them); the
// result lists them as the engine spells handles, the first also as
// handle.
func entityPick(c *call, a *enginev1.EntityPickArgs) (*enginev1.EntityPickResult, error) {
	ans, err := c.ask(&enginev1.ServerRequest{
		Method: gatewayv1.MethodPickEntities,
		Params: &enginev1.ServerRequest_PickEntities{PickEntities: &enginev1.PickEntitiesParams{
			Prompt: a.GetPrompt(), Filter: a.GetTypes(), Max: a.Max,
		}},
	})
	if err != nil {
		return nil, err
	}
	p := ans.GetPickEntities()
	if p == nil {
		return nil, failed("the client answered pick.entities with something else")
	}
	if a.Max != nil && len(p.GetHandles()) > int(a.GetMax()) {
		return nil, failed("the client picked %d entities, more than the %d asked for", len(p.GetHandles()), a.GetMax())
	}
	res := &enginev1.EntityPickResult{}
	for _, s := range p.GetHandles() {
		h, ok := drawing.ParseHandle(s)
		if !ok || c.d.Entity(h) == nil {
			return nil, failed("the client picked %q, which is not an entity of the document", s)
		}
		if len(a.GetTypes()) > 0 && !slices.Contains(a.GetTypes(), c.d.Entity(h).Geom.Kind()) {
			return nil, failed("the client picked %s, a %s, which is not of the requested types", drawing.FormatHandle(h), c.d.Entity(h).Geom.Kind().WireName())
		}
		res.Handles = append(res.Handles, drawing.FormatHandle(h))
	}
	if len(res.Handles) > 0 {
		res.Handle = new(res.Handles[0])
	}
	return res, nil
}

// ---- approvals ----

func (r *run) needsApproval(s *stepPlan) bool {
	return s.tool.info.Annotations.GetDestructive() && r.caller.ApprovalPolicy == enginev1.ApprovalPolicy_APPROVAL_POLICY_DESTRUCTIVE
}

// approve asks the client to approve step s; a deny is denied. The
// request says what the step would touch now.
func (r *run) approve(s *stepPlan, args proto.Message) error {
	summary, affected := r.affected(s, args)
	ans, err := r.ask(s.i, &enginev1.ServerRequest{
		Method: gatewayv1.MethodApproval,
		Params: &enginev1.ServerRequest_Approval{Approval: &enginev1.ApprovalParams{
			OperationId: s.opID, Tool: s.name, Summary: summary, Affected: affected,
		}},
	})
	if err != nil {
		return err
	}
	switch ans.GetApproval().GetDecision() {
	case enginev1.Decision_DECISION_APPROVE:
		return nil
	case enginev1.Decision_DECISION_DENY:
		return denied("the client denied step %d (%s)", s.i, s.name)
	default:
		return failed("the client answered approval without a decision")
	}
}

// affected is the approval request's sentence and the entities a
// destructive step would touch, as the document is now.
func (r *run) affected(s *stepPlan, args proto.Message) (string, *enginev1.Affected) {
	set := map[uint64]bool{}
	var summary string
	switch a := args.(type) {
	case *enginev1.EntityDeleteArgs:
		if h, ok := drawing.ParseHandle(a.GetHandle()); ok && r.d.Entity(h) != nil {
			set[h] = true
		}
		summary = fmt.Sprintf("Delete entity %s.", a.GetHandle())
	case *enginev1.EntityDeleteManyArgs:
		for _, hs := range a.GetHandles() {
			if h, ok := drawing.ParseHandle(hs); ok && r.d.Entity(h) != nil {
				set[h] = true
			}
		}
		on := map[string]bool{}
		for _, l := range a.GetLayers() {
			on[l] = true
		}
		if len(on) > 0 {
			r.d.Each(0, func(e *drawing.Entity) bool {
				if on[e.Layer] {
					set[e.Handle] = true
				}
				return true
			})
		}
		summary = fmt.Sprintf("Delete %d entities.", len(set))
	case *enginev1.LayerDeleteArgs:
		if r.d.LayerEntityCount(a.GetName()) > 0 {
			r.d.Each(0, func(e *drawing.Entity) bool {
				if e.Layer == a.GetName() {
					set[e.Handle] = true
				}
				return true
			})
		}
		summary = fmt.Sprintf("Delete layer %q and the %d entities on it.", a.GetName(), len(set))
	case *enginev1.TransactionRollbackArgs:
		n := 0
		if len(r.checkpoints) > 0 && r.t != nil {
			for _, ch := range r.t.Since(r.checkpoints[len(r.checkpoints)-1].mark) {
				n++
				if ch.Kind == drawing.ChangeEntity {
					set[ch.Handle] = true
				}
			}
		}
		summary = fmt.Sprintf("Undo %d changes since the last checkpoint.", n)
	default:
		summary = fmt.Sprintf("Run %s, which removes data or throws work away.", s.name)
	}
	hs := make([]uint64, 0, len(set))
	for h := range set {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	aff := &enginev1.Affected{Count: int64(len(hs))}
	for _, h := range hs[:min(len(hs), maxAffected)] {
		aff.Handles = append(aff.Handles, drawing.FormatHandle(h))
	}
	return summary, aff
}
