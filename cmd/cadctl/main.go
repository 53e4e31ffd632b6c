// Command cadctl is the command-line client of cadbridge: it talks JSON-RPC
// to the gateway over a WebSocket, runs batches with a live progress bar
// and a summary of typed results, answers the engine's approvals and picks
// at the terminal (or unattended with --yes/--no), exports documents,
// watches events and reads operation records. A dropped connection is
// redialled and the session resumed, prompts included.
//
// The gateway is --url (env CADBRIDGE_URL, default http://127.0.0.1:7400)
// and its bearer token --token (env CADBRIDGE_TOKEN). Run cadctl -h for
// the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], osEnv(term.IsTerminal, terminalWidth))
	stop()
	os.Exit(code)
}

func terminalWidth(fd int) int {
	w, _, err := term.GetSize(fd)
	if err != nil {
		return 0
	}
	return w
}
