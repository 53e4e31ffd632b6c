package cadengine

import (
	"github.com/cadbridge/cadbridge/contract"
	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// A replay (session.resume, session.attach, session.events.since) lists up
// to eventRing events and every open request of the session. Neither
// changes once it is logged, so the session keeps each with its wire JSON,
// encoded once (loggedEvent, loggedRequest), and the replay's answer is
// written from those bytes (wireWriter): the same bytes the generated
// encoder writes for the response message, without encoding hundreds of
// messages per replay.

// loggedEvent is an event of the session's ring and its wire JSON.
type loggedEvent struct {
	*enginev1.Event
	wire []byte
}

// logEvent encodes ev for the ring.
func logEvent(ev *enginev1.Event) loggedEvent {
	wire, _ := contract.Marshal(ev) // strings, integers and raw JSON: cannot fail
	return loggedEvent{Event: ev, wire: wire}
}

// loggedRequest is an open request as a replay lists it, its wire JSON,
// and its reference for SessionCallResult.open_requests (id and method).
type loggedRequest struct {
	*enginev1.OpenServerRequest
	wire []byte
	ref  *enginev1.OpenServerRequest
}

// logRequest encodes the listing of an open request.
func logRequest(id, method string, params []byte) loggedRequest {
	o := &enginev1.OpenServerRequest{Id: id, Method: method, ParamsJson: params}
	wire, _ := contract.Marshal(o) // strings and raw JSON: cannot fail
	return loggedRequest{OpenServerRequest: o, wire: wire, ref: &enginev1.OpenServerRequest{Id: id, Method: method}}
}

// replay is what a replay lists: events and open requests, oldest first,
// and the members that go with them.
type replay struct {
	events    []loggedEvent
	open      []loggedRequest
	latest    int64
	truncated bool
	epoch     string
}

// eventMessages and requestMessages are the lists of the response message.
func (r replay) eventMessages() []*enginev1.Event {
	return mapped(r.events, func(l loggedEvent) *enginev1.Event { return l.Event })
}

func (r replay) requestMessages() []*enginev1.OpenServerRequest {
	return mapped(r.open, func(l loggedRequest) *enginev1.OpenServerRequest { return l.OpenServerRequest })
}

// openRequestRefs are the references of the open requests listed, for
// SessionCallResult.open_requests.
func (r replay) openRequestRefs() []*enginev1.OpenServerRequest {
	return mapped(r.open, func(l loggedRequest) *enginev1.OpenServerRequest { return l.ref })
}

// mapped is f of each element of in.
func mapped[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// wireSize is the length of an answer's wire JSON, or more: the listed
// wire JSON, commas included, and room for the rest.
func (r replay) wireSize() int {
	return listSize(r.events, loggedEvent.wireJSON) + listSize(r.open, loggedRequest.wireJSON) + envelopeRoom
}

// envelopeRoom is what an answer needs beside its lists: its keys, the
// session, the epoch. An answer that needs more grows once.
const envelopeRoom = 1 << 10

// write writes the members that ResumeSessionResponse and
// GetSessionEventsResponse share, in the order of their fields, as their
// generated MarshalWire does.
func (r replay) write(e *jsonwire.Encoder) {
	writeList(e, "\"events\":", r.events, loggedEvent.wireJSON)
	e.Key("\"latest_seq\":")
	e.Int64(r.latest)
	e.Key("\"truncated\":")
	e.Bool(r.truncated)
	e.Key("\"epoch\":")
	e.String(r.epoch)
	writeList(e, "\"open_requests\":", r.open, loggedRequest.wireJSON)
}

// writeList writes key and the list of the wire JSON objects of list,
// unless it is empty (as a repeated field is left out).
func writeList[T any](e *jsonwire.Encoder, key string, list []T, wire func(T) []byte) {
	if len(list) == 0 {
		return
	}
	e.Key(key)
	e.OpenArray()
	for _, l := range list {
		e.Element()
		e.Raw(wire(l), "object")
	}
	e.CloseArray()
}

// listSize is the length of list as writeList writes its elements, commas
// included.
func listSize[T any](list []T, wire func(T) []byte) int {
	n := len(list)
	for _, l := range list {
		n += len(wire(l))
	}
	return n
}

func (l loggedEvent) wireJSON() []byte   { return l.wire }
func (l loggedRequest) wireJSON() []byte { return l.wire }

// resumeAnswer answers session.resume and session.attach: the response
// message (it is one, embedded) and what it lists, logged.
type resumeAnswer struct {
	*enginev1.ResumeSessionResponse
	replay
}

// appendWire appends contract.Marshal(a.ResumeSessionResponse) to b,
// written from the logged wire JSON.
func (a *resumeAnswer) appendWire(b []byte) ([]byte, error) {
	e := jsonwire.NewEncoder(b)
	e.OpenObject()
	e.Key("\"session\":")
	a.Session.MarshalWire(e)
	a.replay.write(e)
	e.CloseObject()
	return e.Bytes(), e.Err()
}

// eventsAnswer answers session.events.since, as resumeAnswer does.
type eventsAnswer struct {
	*enginev1.GetSessionEventsResponse
	replay
}

// appendWire appends contract.Marshal(a.GetSessionEventsResponse) to b,
// written from the logged wire JSON.
func (a *eventsAnswer) appendWire(b []byte) ([]byte, error) {
	e := jsonwire.NewEncoder(b)
	e.OpenObject()
	a.replay.write(e)
	e.CloseObject()
	return e.Bytes(), e.Err()
}

// wireWriter is a replay's answer, which writes its own wire JSON (the
// bytes contract.Marshal writes for its message) and has the references
// of the open requests it lists ready; replays are the only responses
// that list open requests.
type wireWriter interface {
	wireSize() int
	appendWire(b []byte) ([]byte, error)
	openRequestRefs() []*enginev1.OpenServerRequest
}
