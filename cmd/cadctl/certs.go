package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cadbridge/cadbridge/internal/devcert"
)

// cmdCerts makes a certificate authority and, signed by it, the engine's
// server certificate (for the names in --engine-hosts) and the client
// certificates of the gateway and of cadctl (health checks, operators),
// as PEM files in --dir: ca.crt, cadengine.crt/.key, gateway.crt/.key,
// cadctl.crt/.key. The CA's key is not kept, so nothing else can be signed
// by it later. A directory that already has ca.crt is left as it is
// (docker/compose.yaml runs this at every start), unless --force.
func cmdCerts(ctx context.Context, a *app, args []string) int {
	fs := a.flags("certs")
	dir := fs.String("dir", "", "directory to write the certificates to (created if missing)")
	hosts := fs.String("engine-hosts", "cadengine,localhost,127.0.0.1", "comma-separated DNS names and IP addresses the engine is dialled at")
	force := fs.Bool("force", false, "replace the certificates in --dir")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 0 || *dir == "" {
		return a.failUsage("certs takes --dir and no arguments")
	}
	if _, err := os.Stat(filepath.Join(*dir, "ca.crt")); err == nil && !*force {
		fmt.Fprintf(a.stdout, "%s already holds certificates; kept (--force replaces them)\n", *dir)
		return exitOK
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return a.fail(err)
	}
	if err := writeCerts(*dir, strings.Split(*hosts, ",")); err != nil {
		return a.fail(fmt.Errorf("certs: %w", err))
	}
	fmt.Fprintf(a.stdout, "wrote ca.crt, cadengine, gateway and cadctl certificates to %s\n", *dir)
	return exitOK
}

// writeCerts writes the files cmdCerts describes; ca.crt last, so that a
// directory with ca.crt is complete.
func writeCerts(dir string, hosts []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ca, err := devcert.NewCA("cadbridge CA")
	if err != nil {
		return err
	}
	engine, err := ca.Server("cadengine", hosts...)
	if err != nil {
		return err
	}
	if _, _, err := engine.Write(dir, "cadengine"); err != nil {
		return err
	}
	for _, name := range []string{"gateway", "cadctl"} {
		p, err := ca.Client(name)
		if err != nil {
			return err
		}
		if _, _, err := p.Write(dir, name); err != nil {
			return err
		}
	}
	_, err = ca.Write(dir, "ca")
	return err
}
