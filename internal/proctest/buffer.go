package proctest

import (
	"bytes"
	"io"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent use.
type SyncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var _ io.Writer = (*SyncBuffer)(nil)
