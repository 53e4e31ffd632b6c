package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/cli"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1 // the call failed, or the batch did not succeed
	exitUsage       = 2
	exitInterrupted = 130
)

// defaultURL is the gateway of `go run ./cmd/cadbridge`.
const defaultURL = "http://127.0.0.1:7400"

// env is cadctl's view of its process: standard streams, whether they are
// terminals, and the environment.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdinTTY and stderrTTY say whether stdin and stderr are terminals:
	// prompts need the first, the in-place progress bar the second.
	stdinTTY, stderrTTY bool
	// width is the terminal's width; 0 means unknown.
	width  int
	getenv func(string) string
}

// config holds the flags every command has.
type config struct {
	url       string
	token     string
	json      bool
	reconnect time.Duration
}

// register adds the common flags to fs, with defaults from cfg.
func (cfg *config) register(fs *flag.FlagSet) {
	fs.StringVar(&cfg.url, "url", cfg.url, "gateway URL: ws://HOST:PORT/rpc, http://HOST:PORT or HOST:PORT (env "+cli.EnvName("url")+")")
	fs.StringVar(&cfg.token, "token", cfg.token, "bearer token for the gateway (env "+cli.EnvName("token")+")")
	fs.BoolVar(&cfg.json, "json", cfg.json, "print the raw JSON result instead of a summary")
	fs.DurationVar(&cfg.reconnect, "reconnect-timeout", cfg.reconnect, "how long to keep reconnecting after the connection drops (0: do not)")
}

// app is one run of cadctl.
type app struct {
	env
	cfg config
	// envToken is CADBRIDGE_TOKEN, used when --token is not given (and
	// kept out of the flags' defaults, which -h prints).
	envToken string
}

// token is the bearer token: --token, else CADBRIDGE_TOKEN.
func (a *app) token() string {
	if a.cfg.token != "" {
		return a.cfg.token
	}
	return a.envToken
}

// command is a cadctl subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, a *app, args []string) int
}

func commands() []command {
	return []command{
		{"batch", "FILE.json [--document D] [--dry-run] [--on-error stop|continue|rollback] [--operation-id ID] [--yes|--no]", "run a batch of tool calls (cad.batch)", cmdBatch},
		{"tools", "[NAME]", "list the tool catalog, or show one tool's schemas", cmdTools},
		{"doc", "create [--name N] [--units U] | list | info D", "create, list or describe documents", cmdDoc},
		{"export", "D [--format svg|dxf|png|pdf] [--paper P] [--scale N] [--layout L] -o FILE", "export a document as SVG, DXF, PNG or PDF, or plot a layout", cmdExport},
		{"view", "D [-o FILE.png] [--window x1,y1,x2,y2] [--width N] [--layers A,B] [--highlight H,H]", "write a PNG of a view of a document (view_render)", cmdView},
		{"watch", "D...", "print the events of documents as they change", cmdWatch},
		{"op", "ID", "show a recorded operation", cmdOp},
		{"status", "", "show the engine's and the gateway's status", cmdStatus},
		{"call", "METHOD [PARAMS_JSON]", "send any JSON-RPC method and print its result", cmdCall},
		{"health", "[--grpc ADDR]", "check that the gateway (or an engine, over gRPC) is healthy", cmdHealth},
		{"certs", "--dir DIR", "make a CA and the certificates of the engine, the gateway and cadctl for mutual TLS", cmdCerts},
	}
}

// run runs cadctl with args (without the program name) and returns the
// exit code.
func run(ctx context.Context, args []string, e env) int {
	a := &app{env: e, cfg: config{url: defaultURL, reconnect: 30 * time.Second}}
	if v := e.getenv(cli.EnvName("url")); v != "" {
		a.cfg.url = v
	}
	a.envToken = e.getenv(cli.EnvName("token"))
	fs := flag.NewFlagSet("cadctl", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	a.cfg.register(fs)
	fs.Usage = func() { a.usage(fs) }
	if err := fs.Parse(args); err != nil {
		return usageCode(err)
	}
	if fs.NArg() == 0 {
		a.usage(fs)
		return exitUsage
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	if name == "help" {
		a.usage(fs)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, a, rest)
		}
	}
	fmt.Fprintf(e.stderr, "cadctl: unknown command %q\n", name)
	a.usage(fs)
	return exitUsage
}

func (a *app) usage(fs *flag.FlagSet) {
	w := a.stderr
	fmt.Fprintln(w, "cadctl is the command-line client of cadbridge's JSON-RPC gateway.")
	fmt.Fprintln(w, "\nUsage: cadctl [flags] COMMAND [ARGS] [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-7s %s\n          %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nFlags of every command:")
	fs.PrintDefaults()
	fmt.Fprintln(w, "\nRun 'cadctl COMMAND -h' for a command's own flags.")
}

func usageCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// flags returns a flag set for a command, with the common flags.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("cadctl "+name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	a.cfg.register(fs)
	return fs
}

// parse parses args, allowing flags before, between and after the
// positional arguments (a lone "--" ends the flags).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// console returns the terminal side of the run.
func (a *app) console() *console {
	return newConsole(a.stdin, a.stderr, a.stderrTTY, a.width)
}

// dial connects to the gateway.
func (a *app) dial(ctx context.Context, con *console, answer func(context.Context, string, json.RawMessage) (any, error), onEvent func(event)) (*client, error) {
	return dialClient(ctx, clientOptions{
		URL:              a.cfg.url,
		Token:            a.token(),
		Answer:           answer,
		OnEvent:          onEvent,
		Notice:           func(format string, args ...any) { con.printf("cadctl: "+format, args...) },
		ReconnectTimeout: a.cfg.reconnect,
	})
}

// fail reports err and returns exitFailure (exitInterrupted after
// Ctrl-C).
func (a *app) fail(err error) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(a.stderr, "cadctl: interrupted")
		return exitInterrupted
	}
	fmt.Fprintf(a.stderr, "cadctl: %s\n", describeError(err))
	return exitFailure
}

// failUsage reports a usage problem and returns exitUsage.
func (a *app) failUsage(format string, args ...any) int {
	fmt.Fprintf(a.stderr, "cadctl: "+format+"\n", args...)
	return exitUsage
}

// describeError renders an error for people; a JSON-RPC error shows its
// code and data (path and reason for 4000).
func describeError(err error) string {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return err.Error()
	}
	s := fmt.Sprintf("error %d: %s", rpcErr.Code, rpcErr.Message)
	if len(rpcErr.Data) > 0 && string(rpcErr.Data) != "null" && string(rpcErr.Data) != "{}" {
		var data struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(rpcErr.Data, &data) == nil && data.Path != "" {
			s += fmt.Sprintf(" (at %s: %s)", data.Path, data.Reason)
		} else {
			s += " " + compactJSON(rpcErr.Data, 200)
		}
	}
	return s
}

// printJSON writes a raw result on one line.
func (a *app) printJSON(raw json.RawMessage) {
	a.stdout.Write(raw)
	if !strings.HasSuffix(string(raw), "\n") {
		io.WriteString(a.stdout, "\n")
	}
}

// version is cadctl's module version, "dev" in a work tree.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// osEnv is the real process's env.
func osEnv(isTerminal func(fd int) bool, width func(fd int) int) env {
	return env{
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		stdinTTY:  isTerminal(int(os.Stdin.Fd())),
		stderrTTY: isTerminal(int(os.Stderr.Fd())),
		width:     width(int(os.Stderr.Fd())),
		getenv:    os.Getenv,
	}
}
