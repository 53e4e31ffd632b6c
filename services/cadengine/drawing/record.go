package drawing

import "crypto/sha256"

// A table is a document-wide thing stored as one record under its own
// handle: the linetype table, the layouts, the settings, the constraints.
// Each is replaced whole by a change (Tx.SetLinetypes and the like) and
// counts in the content hash by the digest of its encoding.
type table interface {
	comparable
	Encode() []byte
	// record is where the table keeps its handle and its digest.
	record() (handle *uint64, digest *[32]byte)
}

// putTable makes t (nil for none) the table in *slot, moving the content
// hash from the old table's digest to t's; a table without a handle
// takes the document's next.
func putTable[T table](d *Document, slot *T, t T) {
	var none T
	if *slot != none {
		_, digest := (*slot).record()
		d.sum.Sub(*digest)
	}
	*slot = t
	if t == none {
		return
	}
	handle, digest := t.record()
	if *handle == 0 {
		*handle = d.NextHandle
		d.NextHandle++
	}
	*digest = sha256.Sum256(t.Encode())
	d.sum.Add(*digest)
}

// handleOf is the handle of whichever of two states of a table is not
// nil (both have the same).
func handleOf[T table](cur, next T) uint64 {
	var none T
	for _, t := range []T{cur, next} {
		if t != none {
			h, _ := t.record()
			return *h
		}
	}
	return 0
}

func (t *Linetypes) record() (*uint64, *[32]byte)   { return &t.Handle, &t.digest }
func (t *Layouts) record() (*uint64, *[32]byte)     { return &t.Handle, &t.digest }
func (s *Settings) record() (*uint64, *[32]byte)    { return &s.Handle, &s.digest }
func (t *Constraints) record() (*uint64, *[32]byte) { return &t.Handle, &t.digest }

// inherit gives t, which replaces old, old's handle: a table keeps its
// handle through its changes, and takes the next when there was none.
func inherit[T table](old, t T) {
	var none T
	h, _ := t.record()
	*h = handleOf(old, none)
}
