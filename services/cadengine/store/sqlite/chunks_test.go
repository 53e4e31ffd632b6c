package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// record is one record of a chunk, as eachRecord reports it.
type record struct {
	h    uint64
	data []byte // nil for a deletion
}

func records(t *testing.T, chunks [][]byte) []record {
	t.Helper()
	var out []record
	for _, chunk := range chunks {
		if err := eachRecord(chunk, func(h uint64, data []byte) { out = append(out, record{h, data}) }); err != nil {
			t.Fatalf("eachRecord: %v", err)
		}
	}
	return out
}

// TestChunkRecords: a commit's deletions and puts come back from its
// chunks in that order, an empty encoding as a put and not a deletion,
// and a commit past maxChunk is cut into chunks of about that size.
func TestChunkRecords(t *testing.T) {
	del := []uint64{7, 0, maxHandle}
	put := []store.EntityRecord{{Handle: 0x100, Data: []byte("line")}, {Handle: 9, Data: []byte{}}, {Handle: maxHandle, Data: bytes.Repeat([]byte{1}, 300)}}
	want := []record{{7, nil}, {0, nil}, {maxHandle, nil}, {0x100, []byte("line")}, {9, []byte{}}, {maxHandle, bytes.Repeat([]byte{1}, 300)}}
	got := records(t, chunksOf(del, put))
	if len(got) != len(want) {
		t.Fatalf("records = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].h != want[i].h || (got[i].data == nil) != (want[i].data == nil) || !bytes.Equal(got[i].data, want[i].data) {
			t.Errorf("record %d = %v, want %v", i, got[i], want[i])
		}
	}

	big := make([]store.EntityRecord, 5000)
	for i := range big {
		big[i] = store.EntityRecord{Handle: uint64(i), Data: bytes.Repeat([]byte{byte(i)}, 500)}
	}
	chunks := chunksOf(nil, big)
	if len(chunks) < 2 {
		t.Fatalf("%d bytes of records made %d chunk, want several", 5000*500, len(chunks))
	}
	for i, chunk := range chunks {
		if len(chunk) > maxChunk+510 {
			t.Errorf("chunk %d is %d bytes, want at most one record past %d", i, len(chunk), maxChunk)
		}
	}
	if n := len(records(t, chunks)); n != len(big) {
		t.Errorf("the chunks hold %d records, want %d", n, len(big))
	}
}

// TestChunkMalformed: a chunk cut short or with a length past its end
// fails, and does not report the record it cuts.
func TestChunkMalformed(t *testing.T) {
	whole := appendPut(nil, store.EntityRecord{Handle: 300, Data: []byte("data")})
	for _, chunk := range [][]byte{whole[:1], whole[:len(whole)-1], {0x80}, {0x02, 0x05, 'a'}} {
		n := 0
		if err := eachRecord(chunk, func(uint64, []byte) { n++ }); err == nil || n != 0 {
			t.Errorf("eachRecord(%x) = %d records, %v; want none and an error", chunk, n, err)
		}
	}
}

// FuzzChunk: eachRecord never panics, and what it reads of a chunk
// encodes to a chunk that reads the same.
func FuzzChunk(f *testing.F) {
	f.Add(chunksOf([]uint64{3}, []store.EntityRecord{{Handle: 0x100, Data: []byte("x")}})[0])
	f.Add([]byte{0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, chunk []byte) {
		var seen []record
		if err := eachRecord(chunk, func(h uint64, data []byte) { seen = append(seen, record{h, data}) }); err != nil {
			return
		}
		var again []byte
		for _, r := range seen {
			if r.data == nil {
				again = appendDelete(again, r.h)
			} else {
				again = appendPut(again, store.EntityRecord{Handle: r.h, Data: r.data})
			}
		}
		got := records(t, [][]byte{again})
		if len(got) != len(seen) {
			t.Fatalf("re-encoded %d records, read %d", len(seen), len(got))
		}
		for i := range got {
			if got[i].h != seen[i].h || (got[i].data == nil) != (seen[i].data == nil) || !bytes.Equal(got[i].data, seen[i].data) {
				t.Fatalf("record %d read back as %v, want %v", i, got[i], seen[i])
			}
		}
	})
}

// chunkRows is how many chunks, and records in them, document id has.
func chunkRows(t *testing.T, s *Store, id string) (chunks, recs int) {
	t.Helper()
	all, err := column[[]byte](context.Background(), s.db, `SELECT data FROM entity_chunks WHERE document_id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	return len(all), len(records(t, all))
}

// doc is a document row for the tests' commits.
func doc(id string, rev int64) *store.DocumentRecord {
	return &store.DocumentRecord{ID: id, Name: id, CreatedAt: time.Unix(0, 1), Revision: rev, NextHandle: 1 << 40}
}

// TestCompactionModel commits random creations, updates and deletions
// (deleting entities it never created too, and putting one twice in a
// commit), and checks what Load reads after a restart against what they
// leave; that compactions keep the records the chunks hold within twice
// the entities, plus what compactMin and one commit allow; and that the
// store's statistics are what its chunks hold.
func TestCompactionModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cadengine.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[uint64][]byte{}
	next, compactions := uint64(0x100), 0
	for c := range 600 {
		commit := &store.Commit{Document: doc("doc-1", int64(c))}
		for range rng.IntN(60) {
			switch k := rng.IntN(10); {
			case k < 3 || len(model) == 0: // create
				commit.Put = append(commit.Put, store.EntityRecord{Handle: next, Data: fmt.Appendf(nil, "e%d.%d", next, c)})
				next++
			case k < 8: // update
				h := 0x100 + rng.Uint64N(next-0x100)
				commit.Put = append(commit.Put, store.EntityRecord{Handle: h, Data: fmt.Appendf(nil, "e%d.%d", h, c)})
			default: // delete, maybe what is gone or was never made
				commit.Delete = append(commit.Delete, 0x100+rng.Uint64N(next-0x100+5))
			}
		}
		if len(commit.Put) > 0 && rng.IntN(20) == 0 {
			commit.Put = append(commit.Put, commit.Put[0]) // of a handle put twice, the last stays
		}
		for _, h := range commit.Delete {
			delete(model, h)
		}
		for _, e := range commit.Put {
			model[e.Handle] = e.Data
		}
		before, _ := chunkRows(t, s, "doc-1")
		if err := s.Commit(ctx, commit); err != nil {
			t.Fatalf("commit %d: %v", c, err)
		}
		chunks, recs := chunkRows(t, s, "doc-1")
		if chunks < before {
			compactions++
		}
		if limit := 2*len(model) + compactMin + len(commit.Put) + len(commit.Delete); recs > limit {
			t.Fatalf("after commit %d the chunks hold %d records for %d entities, want at most %d", c, recs, len(model), limit)
		}
		if stats := s.chunks["doc-1"]; stats.records != recs || stats.live.Len() != len(model) {
			t.Fatalf("after commit %d the statistics count %d records and %d entities, the chunks hold %d and %d", c, stats.records, stats.live.Len(), recs, len(model))
		}
		if c%150 == 149 {
			s.Close()
			if s, err = Open(path); err != nil {
				t.Fatal(err)
			}
			wantEntities(t, s, "doc-1", model)
		}
	}
	if compactions == 0 {
		t.Error("no commit compacted the document")
	}
}

// wantEntities checks what Load reads of document id.
func wantEntities(t *testing.T, s *Store, id string, want map[uint64][]byte) {
	t.Helper()
	var got []store.EntityRecord
	err := s.Load(context.Background(), func(d *store.DocumentRecord, ents []store.EntityRecord) error {
		if d.ID == id {
			got = ents
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	handles := slices.Sorted(maps.Keys(want))
	if len(got) != len(handles) {
		t.Fatalf("Load read %d entities of %s, want %d", len(got), id, len(handles))
	}
	for i, h := range handles {
		if got[i].Handle != h || !bytes.Equal(got[i].Data, want[h]) {
			t.Fatalf("entity %d of %s = %x %q, want %x %q", i, id, got[i].Handle, got[i].Data, h, want[h])
		}
	}
}

// TestCommitFailedRecounts: a commit that fails after counting its
// records leaves no count behind; the next commit counts from the chunks.
func TestCommitFailedRecounts(t *testing.T) {
	s := openCommitted(t)
	ctx := context.Background()
	bad := &store.Commit{Document: doc("doc-1", 2), Put: []store.EntityRecord{{Handle: 5, Data: []byte("e")}},
		Operations: []store.OperationRecord{{Principal: "p", ID: "op-1", RequestHash: nil}}} // request_hash NOT NULL: the commit fails
	if err := s.Commit(ctx, bad); err == nil {
		t.Fatal("a commit with a NULL request hash succeeded")
	}
	if _, ok := s.chunks["doc-1"]; ok {
		t.Error("the failed commit's counts stayed")
	}
	if err := s.Commit(ctx, testCommit("doc-1", 6)); err != nil {
		t.Fatal(err)
	}
	if stats := s.chunks["doc-1"]; stats.records != 2 || stats.live.Len() != 2 {
		t.Errorf("statistics count %d records and %d entities, want 2 and 2", stats.records, stats.live.Len())
	}
}

// TestEntitiesMigrated opens a file of user_version 4, whose entities are
// a row each: Open moves them into chunks and drops the table, and they
// load as they were.
func TestEntitiesMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[uint64][]byte{"doc-1": {}, "doc-2": {}}
	for _, stmt := range []string{
		`CREATE TABLE documents (id TEXT PRIMARY KEY, name TEXT NOT NULL, units INTEGER NOT NULL, created_at INTEGER NOT NULL, revision INTEGER NOT NULL,
			next_handle INTEGER NOT NULL, current_layer TEXT NOT NULL, layers TEXT NOT NULL, content_hash TEXT NOT NULL)`,
		`CREATE TABLE entities (document_id TEXT NOT NULL REFERENCES documents(id), handle INTEGER NOT NULL, data BLOB NOT NULL,
			PRIMARY KEY (document_id, handle)) WITHOUT ROWID`,
		`INSERT INTO documents VALUES ('doc-1', 'one', 1, 0, 3, 4096, '0', '[]', ''), ('doc-2', 'two', 1, 0, 1, 512, '0', '[]', '')`,
		`PRAGMA user_version = 4`,
	} {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for h := uint64(0x100); h < 0x100+3000; h++ { // past one chunk: 3000 records of 400 bytes
		data := bytes.Repeat([]byte{byte(h)}, 400)
		want["doc-1"][h] = data
		if _, err := old.Exec(`INSERT INTO entities VALUES ('doc-1', ?, ?)`, h, data); err != nil {
			t.Fatal(err)
		}
	}
	want["doc-2"][0x100] = []byte("only")
	if _, err := old.Exec(`INSERT INTO entities VALUES ('doc-2', 256, 'only')`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	for open := range 2 {
		s, err := Open(path)
		if err != nil {
			t.Fatalf("open %d: %v", open, err)
		}
		for id, ents := range want {
			wantEntities(t, s, id, ents)
		}
		var tables int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'entities'`).Scan(&tables); err != nil || tables != 0 {
			t.Errorf("open %d: %d entities tables (%v), want none", open, tables, err)
		}
		if chunks, _ := chunkRows(t, s, "doc-1"); chunks < 2 {
			t.Errorf("open %d: doc-1's 1.2 MB of entities are in %d chunk, want them cut in several", open, chunks)
		}
		s.Close()
	}
}
