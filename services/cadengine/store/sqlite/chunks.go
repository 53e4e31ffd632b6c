package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cadbridge/cadbridge/services/cadengine/pages"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// A document's entities are kept as chunks: each commit that changes
// entities writes its records as one row of entity_chunks (or a few, for
// a commit of more than maxChunk bytes), and Load folds a document's
// chunks, oldest first, into its entities. The engine holds every
// document in memory and reads the store only when it starts, so the
// file is written far more than it is read, and a chunk is the cheapest
// write there is: one row per commit, not an upsert into a b-tree per
// entity (which cost about 1.6 µs of CPU per entity, two thirds of a
// 1000-entity commit). Records a later chunk superseded stay behind until
// the document is compacted (see chunkStats).
//
// A chunk is a sequence of records, each one of
//
//	uvarint(handle<<1 | 1)                      a deletion of handle
//	uvarint(handle<<1) uvarint(len) data[len]   handle's record, data its encoding
//
// A deletion is kept only while an older chunk may hold a record of its
// handle; a compaction drops it.

// maxChunk is the size past which a commit's records start another chunk.
const maxChunk = 1 << 20

// maxHandle bounds the handles a chunk can hold (one bit goes to the
// record's kind); a document's handles come from a counter and never get
// near it.
const maxHandle = 1<<63 - 1

// errChunk is what a chunk that does not parse fails with.
var errChunk = errors.New("malformed entity chunk")

// appendPut appends the record of e to chunk.
func appendPut(chunk []byte, e store.EntityRecord) []byte {
	chunk = binary.AppendUvarint(chunk, e.Handle<<1)
	chunk = binary.AppendUvarint(chunk, uint64(len(e.Data)))
	return append(chunk, e.Data...)
}

// appendDelete appends the deletion of handle h to chunk.
func appendDelete(chunk []byte, h uint64) []byte {
	return binary.AppendUvarint(chunk, h<<1|1)
}

// eachRecord calls fn with each record of chunk in order: its handle, and
// its data, nil for a deletion. data is part of chunk.
func eachRecord(chunk []byte, fn func(h uint64, data []byte)) error {
	for len(chunk) > 0 {
		key, n := binary.Uvarint(chunk)
		if n <= 0 {
			return errChunk
		}
		chunk = chunk[n:]
		if key&1 == 1 {
			fn(key>>1, nil)
			continue
		}
		size, n := binary.Uvarint(chunk)
		if n <= 0 || size > uint64(len(chunk)-n) {
			return errChunk
		}
		chunk = chunk[n:]
		fn(key>>1, chunk[:size:size])
		chunk = chunk[size:]
	}
	return nil
}

// checkHandles fails for a commit with a handle a chunk cannot hold.
func checkHandles(c *store.Commit) error {
	for _, h := range c.Delete {
		if h > maxHandle {
			return fmt.Errorf("entity handle %x is too large to store", h)
		}
	}
	for _, e := range c.Put {
		if e.Handle > maxHandle {
			return fmt.Errorf("entity handle %x is too large to store", e.Handle)
		}
	}
	return nil
}

// chunksOf encodes a commit's deletions, then its puts (the order in which
// a commit applies them), as chunks of about maxChunk bytes at most: each
// starts a new one once the one before reached maxChunk. Each chunk is
// made at its size, not grown to it.
func chunksOf(del []uint64, put []store.EntityRecord) [][]byte {
	var (
		chunks [][]byte
		cur    []byte
		left   = len(del) * binary.MaxVarintLen64 // what is left to encode, at most
	)
	for _, e := range put {
		left += 2*binary.MaxVarintLen64 + len(e.Data)
	}
	// add makes room for a record of at most n bytes, in the current
	// chunk or a new one.
	add := func(n int) {
		if len(cur) >= maxChunk {
			chunks = append(chunks, cur)
			cur = nil
		}
		if cur == nil {
			cur = make([]byte, 0, min(left, maxChunk+n))
		}
		left -= n
	}
	for _, h := range del {
		add(binary.MaxVarintLen64)
		cur = appendDelete(cur, h)
	}
	for _, e := range put {
		add(2*binary.MaxVarintLen64 + len(e.Data))
		cur = appendPut(cur, e)
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// folded is a document's entities as its chunks leave them.
type folded struct {
	ents    pages.Table[[]byte] // the latest record of every entity, by handle
	records int                 // the records the chunks hold, deletions included
}

// fold applies chunk's records, in order, to f.
func (f *folded) fold(chunk []byte) error {
	return eachRecord(chunk, func(h uint64, data []byte) {
		f.records++
		if data == nil {
			f.ents.Delete(h)
		} else {
			f.ents.Put(h, data)
		}
	})
}

// entities lists the entities in handle order.
func (f *folded) entities() []store.EntityRecord {
	out := make([]store.EntityRecord, 0, f.ents.Len())
	f.ents.Each(0, func(h uint64, data []byte) bool {
		out = append(out, store.EntityRecord{Handle: h, Data: data})
		return true
	})
	return out
}

// stats are the chunk statistics of f.
func (f *folded) stats() *chunkStats {
	s := &chunkStats{records: f.records}
	f.ents.Each(0, func(h uint64, _ []byte) bool {
		s.live.Put(h, struct{}{})
		return true
	})
	return s
}

// compactMin is the fewest stale records worth a compaction.
const compactMin = 4096

// chunkStats count what a document's chunks hold, so that the store
// compacts the document — folds its chunks into as few as its entities
// need, dropping every superseded record and deletion — once more than
// half of what they hold is stale (and at least compactMin records are).
// A compaction reads and writes O(records), at least as many as the
// stale records written since the last one: O(1) for each record written.
//
// The counts are exact when made from the chunks themselves (by Load, or
// the first commit of a document after the store opened) and kept so by
// each commit of this store. Another store open on the same file (a
// second engine of the machine) does not tell this one what it wrote:
// then they are off until the next open or compaction, which may come
// late or early, but never changes what a document holds.
type chunkStats struct {
	live    pages.Table[struct{}] // the handles of the entities the chunks hold
	records int                   // the records the chunks hold, deletions included
}

// stale is how many records of the chunks no entity needs.
func (s *chunkStats) stale() int { return s.records - s.live.Len() }

// due reports whether the document is to be compacted.
func (s *chunkStats) due() bool {
	stale := s.stale()
	return stale >= compactMin && 2*stale > s.records
}

// apply counts the records of c, written to the chunks.
func (s *chunkStats) apply(c *store.Commit) {
	s.records += len(c.Delete) + len(c.Put)
	for _, h := range c.Delete {
		s.live.Delete(h)
	}
	for _, e := range c.Put {
		s.live.Put(e.Handle, struct{}{})
	}
}
