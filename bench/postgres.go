package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// The rows of several engines on PostgreSQL (DESIGN §7).

// envPostgres names the PostgreSQL server the rows use; the default is
// the test server's.
const envPostgres = "CADBRIDGE_TEST_POSTGRES"

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// postgresSchema makes a schema of its own on the server and returns a
// store URL with search_path set to it, and the function that drops it.
// An unreachable server skips the row, or fails it under CI=true.
func postgresSchema(ctx context.Context, row *Row) (string, func(), error) {
	base := os.Getenv(envPostgres)
	if base == "" {
		base = defaultPostgres
	}
	name := "cbbench_" + strings.ToLower(rand.Text()[:16])
	exec := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE SCHEMA " + pgx.Identifier{name}.Sanitize()); err != nil {
		if os.Getenv("CI") == "true" {
			return "", nil, fmt.Errorf("PostgreSQL (%s): %w", envPostgres, err)
		}
		row.Skipped = fmt.Sprintf("no PostgreSQL server (%s): %v", envPostgres, err)
		return "", nil, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() {
		_ = exec("SET lock_timeout = '10s'; DROP SCHEMA " + pgx.Identifier{name}.Sanitize() + " CASCADE")
	}
	return u.String(), drop, nil
}

// journalPostgres measures the durable journal on PostgreSQL against
// SQLite: the same batches through the gateway to an engine on each
// (PostgreSQL with its leases and fencing, as engines that share it run).
func journalPostgres(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.JournalSteps
	row.Title = fmt.Sprintf("one cad.batch of %d entity_create_line over WebSocket: PostgreSQL store (leased, fenced, synchronous_commit on) vs SQLite store (WAL, synchronous=FULL)", n)
	row.Size = fmt.Sprintf("%d steps, %d batches per side", n, e.sizes.JournalRounds*e.sizes.JournalOps)
	pg, drop, err := postgresSchema(ctx, row)
	if err != nil || row.Skipped != "" {
		return err
	}
	defer drop()
	dir, err := e.tempDir("cadbench-journal-pg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, s, err := compareStores(ctx, e, n, storeSide{"sqlite:" + filepath.Join(dir, "cadengine.db"), "SQLite store, synchronous=FULL"}, storeSide{pg, "PostgreSQL store, leased"})
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("throughput-ratio", "throughput, PostgreSQL ÷ SQLite (higher is better)", ratio(s.Throughput, b.Throughput), "x", Goal{">=", 0.5}),
	}
	row.Notes = []string{
		"PostgreSQL on loopback (" + redactURL(pg) + "); one batch is one pgx batch: the fence, the document row, the entities as arrays, the journal record and a NOTIFY, committed in one implicit transaction.",
		fmt.Sprintf("The SQLite file is in %s (%s).", filepath.Dir(dir), fsType(dir)),
	}
	return nil
}

func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "?"
	}
	p.RawQuery = ""
	return p.Redacted()
}

// failover measures how long a document is unavailable when its holder
// dies: two engine processes on PostgreSQL with a short lease TTL behind
// one gateway process; each round kill -9s the engine that holds the
// document and times the first successful call on the document through
// the gateway (which reaches the other engine once the lease expired),
// then restarts the killed engine.
func failover(ctx context.Context, e *env, row *Row) error {
	const ttl = 2 * time.Second
	kills := max(e.sizes.FailoverKills, 1)
	row.Title = fmt.Sprintf("time from kill -9 of a document's holder to the first successful call on it through the other engine (lease TTL %s)", ttl)
	row.Size = e.sizeNote(kills, e.full.FailoverKills, "kills")
	pg, drop, err := postgresSchema(ctx, row)
	if err != nil || row.Skipped != "" {
		return err
	}
	defer drop()
	bin, err := os.MkdirTemp("", "cadbench-failover-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	engineBin, gatewayBin, err := buildServices(ctx, bin)
	if err != nil {
		return err
	}
	addrs := [2]string{freePort(), freePort()}
	var engines [2]*exec.Cmd
	startEngine := func(i int) error {
		cmd, _, err := startService(ctx, engineBin, engineAnnounce, "--listen", addrs[i], "--store", pg, "--metrics-listen", "", "--lease-ttl", ttl.String())
		engines[i] = cmd
		return err
	}
	for i := range engines {
		if err := startEngine(i); err != nil {
			return err
		}
	}
	defer func() {
		for _, c := range engines {
			if c != nil {
				c.Process.Kill()
				c.Wait()
			}
		}
	}()
	gw, gwAddr, err := startService(ctx, gatewayBin, gatewayAnnounce, "--listen", "127.0.0.1:0", "--engine", addrs[0]+","+addrs[1])
	if err != nil {
		return err
	}
	defer func() {
		gw.Process.Kill()
		gw.Wait()
	}()
	c, err := Dial(ctx, gwAddr, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	doc, err := createDocument(ctx, c)
	if err != nil {
		return err
	}
	get := mustJSON(obj{"document_id": doc})
	holder := 0 // the gateway's home made the document
	e.ready()
	var times []time.Duration
	for range kills {
		engines[holder].Process.Kill()
		engines[holder].Wait()
		start := time.Now()
		for {
			if _, err := c.CallRaw(ctx, gatewayv1.MethodDocumentGet, get); err == nil {
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if time.Since(start) > time.Minute {
				return errors.New("the document did not come back within a minute")
			}
			time.Sleep(20 * time.Millisecond)
		}
		times = append(times, time.Since(start))
		if err := startEngine(holder); err != nil {
			return err
		}
		holder = 1 - holder
	}
	slices.Sort(times)
	worst := times[len(times)-1]
	row.Checks = []Check{
		check("failover-max-s", "slowest failover, seconds", worst.Seconds(), "s", Goal{"<=", (ttl + 2*time.Second).Seconds()}),
		check("failover-p50-s", "median failover, seconds", percentile(times, 0.5).Seconds(), "s", Goal{"<=", (ttl + 2*time.Second).Seconds()}),
	}
	row.Notes = []string{
		fmt.Sprintf("%d kills; each failover took %s (sorted). The gateway polls document.get every 20 ms; the killed engine restarts after each round, so every kill finds two engines.", len(times), fmtDurs(times)),
		"A failover lasts until the dead holder's lease expires (at most one TTL after its last renewal, which is every TTL/3), then one grant and one read of the document.",
	}
	return nil
}

func fmtDurs(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtDur(d)
	}
	return strings.Join(parts, ", ")
}

var (
	engineAnnounce  = regexp.MustCompile(`^cadengine listening on (\S+)`)
	gatewayAnnounce = regexp.MustCompile(`^gateway listening on http://(\S+)`)
)

// buildServices compiles cadengine and gateway into dir from the module
// that holds the working directory.
func buildServices(ctx context.Context, dir string) (engine, gateway string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", "", errors.New("the failover row builds the services: run it inside the cadbridge module")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./services/cadengine/cmd/cadengine", "./services/gateway/cmd/gateway")
	cmd.Dir = filepath.Dir(mod)
	if data, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build: %w\n%s", err, data)
	}
	return filepath.Join(dir, "cadengine"), filepath.Join(dir, "gateway"), nil
}

// startService runs path and waits for the stdout line announce matches,
// whose first group is the address.
func startService(ctx context.Context, path string, announce *regexp.Regexp, args ...string) (*exec.Cmd, string, error) {
	cmd := exec.Command(path, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := announce.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, a, nil
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, "", fmt.Errorf("%s did not announce its address", filepath.Base(path))
}

func freePort() string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer lis.Close()
	return lis.Addr().String()
}

// sessionEventsPostgres measures what a session's durable event log costs
// on PostgreSQL: the same batch through the gateway to one engine on a
// PostgreSQL store, with a session (a batch.progress per step and an
// operation.finished, written to the shared store before the result) and
// without one (no events).
func sessionEventsPostgres(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.JournalSteps
	row.Title = fmt.Sprintf("one cad.batch of %d entity_create_line over WebSocket on a PostgreSQL store: with a session (its %d events written to the store before the result) vs without (no events)", n, n+1)
	row.Size = fmt.Sprintf("%d steps, %d batches per side", n, e.sizes.JournalRounds*e.sizes.JournalOps)
	pg, drop, err := postgresSchema(ctx, row)
	if err != nil || row.Skipped != "" {
		return err
	}
	defer drop()
	st, err := Start(Options{Store: pg})
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := Dial(ctx, st.Gateway, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	sess, err := createSession(ctx, c, nil)
	if err != nil {
		return err
	}
	var sides [2]*contender
	for i, name := range []string{"without a session", "with a session"} {
		doc, err := createDocument(ctx, c)
		if err != nil {
			return err
		}
		params := obj{"document_id": doc, "steps": lineSteps(n)}
		if i == 1 {
			params["session_id"] = sess.SessionID
		}
		batch := mustJSON(params)
		sides[i] = &contender{
			name: name, unit: "batch", perBlock: e.sizes.JournalOps,
			op: func(ctx context.Context, _ int) error { return runBatch(ctx, c, batch) },
		}
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.JournalRounds, 2, sides[0], sides[1])
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("throughput-ratio", "throughput, with a session ÷ without (higher is better)", ratio(s.Throughput, b.Throughput), "x", Goal{">=", 0.5}),
	}
	row.Notes = []string{
		"PostgreSQL on loopback (" + redactURL(pg) + "); the engine's event log writes a batch's events while it runs, what is queued (of every session) in one fenced append per round trip and one row per session, and the result waits for the last of them (operation.finished).",
		"Both sides carry what a session costs anyway: the events travel engine → gateway → client.",
	}
	return nil
}
