package drawing

import (
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Error is a change the drawing's rules refuse (Kind refused: a
// locked layer) or cannot make (Kind failed: a layer that does not exist,
// coordinates that overflow). The engine reports it as a tool failure of
// that kind.
type Error struct {
	Kind    enginev1.ErrorKind
	Message string
}

// Error is the message.
func (e *Error) Error() string { return e.Message }

func ruleRefused(format string, args ...any) error {
	return &Error{Kind: enginev1.ErrorKind_ERROR_KIND_REFUSED, Message: fmt.Sprintf(format, args...)}
}

func ruleFailed(format string, args ...any) error {
	return &Error{Kind: enginev1.ErrorKind_ERROR_KIND_FAILED, Message: fmt.Sprintf(format, args...)}
}
