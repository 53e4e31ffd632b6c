//go:build !linux

package parking

import "syscall"

// poller has nothing to wait with here: open fails, and no connection is
// ever parked.
type poller struct{}

func (p *poller) open() error { return ErrUnsupported }

func (l *Lot) add(syscall.RawConn, Ticket) error { return ErrUnsupported }

func (l *Lot) remove(syscall.RawConn) {}

func (l *Lot) wait() {}
