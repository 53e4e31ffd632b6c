package gateway

import (
	"fmt"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// checker validates what the gateway sends (results, events and their
// payloads, server-request params) against the contracts. It runs when
// Config.CheckContracts is set — under the test suite — so that a
// violation fails the test that caused it.
type checker struct {
	results  map[string]*contract.Schema // by method
	params   map[string]*contract.Schema // of notifications and server requests, by method
	payloads map[string]*contract.Schema // of events, by type
}

func newChecker() (*checker, error) {
	c := &checker{results: map[string]*contract.Schema{}, params: map[string]*contract.Schema{}, payloads: map[string]*contract.Schema{}}
	for _, m := range gatewayv1.Methods {
		var err error
		switch {
		case m.Event:
			c.payloads[m.Name], err = contract.CompileSchema(m.Name+".payload", m.ParamsSchema)
		case m.Direction == gatewayv1.Direction_DIRECTION_SERVER_TO_CLIENT:
			c.params[m.Name], err = contract.CompileSchema(m.Name+".params", m.ParamsSchema)
		case m.ResultSchema != "":
			c.results[m.Name], err = contract.CompileSchema(m.Name+".result", m.ResultSchema)
		}
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// result checks a method's encoded result.
func (c *checker) result(method string, data []byte) error {
	return check(c.results[method], method+" result", data)
}

// sent checks the encoded params of a notification or server request, and
// an event's payload.
func (c *checker) sent(method string, data []byte, ev *enginev1.Event) error {
	if err := check(c.params[method], method+" params", data); err != nil {
		return err
	}
	if ev == nil {
		return nil
	}
	s, ok := c.payloads[ev.GetType()]
	if !ok {
		return fmt.Errorf("contract violation: event type %q is not declared", ev.GetType())
	}
	return check(s, ev.GetType()+" payload", ev.GetPayloadJson())
}

func check(s *contract.Schema, what string, data []byte) error {
	if s == nil {
		return nil
	}
	v, err := contract.ParseJSON(data)
	if err != nil {
		return fmt.Errorf("contract violation: %s: %w", what, err)
	}
	if violation := s.Validate(v); violation != nil {
		return fmt.Errorf("contract violation: %s: %w", what, violation)
	}
	return nil
}
