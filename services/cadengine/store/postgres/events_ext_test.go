package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// TestLoadEventsLost: appends are committed lazily, so a session whose
// newest append is older than the server's start (the server restarted
// since, and may have lost newer ones) is loaded as lost; one appended
// since is not.
func TestLoadEventsLost(t *testing.T) {
	ctx := context.Background()
	url := postgrestest.URL(t)
	s := open(t, url)
	l, err := s.Grant(ctx, "session:ses-1", "engine-a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	appendOne := func(seq int64) {
		t.Helper()
		a := store.EventAppend{Lease: l, SessionID: "ses-1", Keep: 100, Events: []store.EventRecord{{Seq: seq, Type: "batch.progress", Payload: []byte(`{}`)}}}
		if fenced, err := s.AppendEvents(ctx, []store.EventAppend{a}); err != nil || len(fenced) != 0 {
			t.Fatalf("AppendEvents = %v, %v", fenced, err)
		}
	}
	wantLost := func(want bool, n int) {
		t.Helper()
		evs, lost, err := s.LoadEvents(ctx, "ses-1")
		if err != nil || lost != want || len(evs) != n {
			t.Errorf("LoadEvents = %d events, lost %v, %v; want %d, lost %v", len(evs), lost, err, n, want)
		}
	}
	appendOne(1)
	wantLost(false, 1)
	// As if the server had started after the append.
	if _, err := connect(t, url).Exec(ctx, `UPDATE session_events SET server_start = pg_postmaster_start_time() - interval '1 hour'`); err != nil {
		t.Fatal(err)
	}
	wantLost(true, 1)
	appendOne(2)
	wantLost(false, 2)
}
