package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
)

// The WAL file is zero-filled when the store opens, up to the size at
// which SQLite starts it over. SQLite appends a commit's frames to the
// WAL until a checkpoint has copied them all into the database; the next
// commit then writes from the front again, over the frames of before.
// While it appends, each commit's fsync also has the file system
// commit the file's new blocks and size, and on ext4 that made a commit
// of 13 frames cost ~1.6× one written over blocks the file already had
// (see docs/decisions.md): every engine start paid it for its first
// ~80 batches, and a server never did after. PostgreSQL zero-fills its
// WAL segments for the same reason (wal_init_zero).
//
// The zeros are no frames: a frame counts only with the salts of the
// WAL's header and the checksum chain of the frames before it, so
// recovery stops at them as it stops at frames of an earlier pass.

const (
	walHeaderSize      = 32 // the WAL file's header
	walFrameHeaderSize = 24 // each frame's header, before its page
	// walSpareFrames is room past the checkpoint threshold for the
	// commit that crosses it (a 1000-step batch writes about 35 frames).
	walSpareFrames = 256
)

// presizedWAL is the size presizeWAL gives the WAL: its header and the
// frames of the checkpoint threshold and walSpareFrames, at the
// database's page size.
func presizedWAL(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var pageSize, threshold int64
	if err := q.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&threshold); err != nil {
		return 0, err
	}
	return walHeaderSize + (threshold+walSpareFrames)*(walFrameHeaderSize+pageSize), nil
}

// presizeWAL zero-fills the WAL file of the database at path from its end
// up to the size at which SQLite starts it over, holding the write lock
// (an IMMEDIATE transaction on db) so that no commit appends to it
// meanwhile. A WAL already that size is left as it is.
func presizeWAL(ctx context.Context, db *sql.DB, path string) error {
	tx, err := db.BeginTx(ctx, nil) // IMMEDIATE (_txlock): the write lock
	if err != nil {
		return err
	}
	defer tx.Rollback() // it writes nothing
	want, err := presizedWAL(ctx, tx)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path+"-wal", os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no WAL open: SQLite makes it at the first write
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() >= want {
		return nil
	}
	zeros := make([]byte, 256<<10)
	for off := info.Size(); off < want; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), want-off)], off); err != nil {
			return err
		}
	}
	return f.Sync()
}
