// Package postgrestest gives each test a PostgreSQL database of its own:
// a new, empty schema on the test server, dropped with everything in it
// when the test ends.
//
// The test server is the URL in $CADBRIDGE_TEST_POSTGRES, or else the
// local server of the development machines and CI, [DefaultURL]. When it
// cannot be reached, a test skips, except under CI=true, where it fails:
// CI never passes by skipping.
package postgrestest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the environment variable that overrides [DefaultURL]: a
// postgres:// URL of a database where the test user may create schemas.
const EnvURL = "CADBRIDGE_TEST_POSTGRES"

// DefaultURL is the test server when $CADBRIDGE_TEST_POSTGRES is unset:
// the local PostgreSQL on loopback, with trust authentication.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// serverURL is the test server's URL.
func serverURL() string {
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	return DefaultURL
}

func unreachable(tb testing.TB, base string, err error) {
	tb.Helper()
	msg := fmt.Sprintf("PostgreSQL test server %s: %v (set %s to another)", redact(base), err, EnvURL)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// redact is u without its password, for messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// URL returns the URL of a new, empty schema of the test server's
// database: the server's URL with search_path set to the schema, so that
// everything a store opened on it creates lands there. The schema is
// dropped, with all it holds, when tb ends, after the cleanups registered
// later (such as closing the stores opened on it) have run.
func URL(tb testing.TB) string {
	tb.Helper()
	base := serverURL()
	name := "cbtest_" + strings.ToLower(rand.Text()[:16])
	exec(tb, base, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize())
	tb.Cleanup(func() {
		exec(tb, base, "SET lock_timeout = '10s'; DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs sql on a connection of its own to the server at base.
func exec(tb testing.TB, base, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachable(tb, base, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}
