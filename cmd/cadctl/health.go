package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/cadbridge/cadbridge/internal/mtls"
)

// cmdHealth checks a service and exits 0 when it is healthy: the gateway's
// /healthz, or with --grpc an engine's grpc.health.v1 service (over mutual
// TLS with --engine-tls-cert, --engine-tls-key and --engine-ca). The
// containers' health checks run it (distroless images have no shell or
// curl).
func cmdHealth(ctx context.Context, a *app, args []string) int {
	fs := a.flags("health")
	grpcAddr := fs.String("grpc", "", "check the engine at this gRPC address instead of the gateway")
	var engineTLS mtls.Files
	fs.StringVar(&engineTLS.Cert, "engine-tls-cert", "", "with --grpc: a client certificate (PEM) for the engine's mutual TLS")
	fs.StringVar(&engineTLS.Key, "engine-tls-key", "", "the key of --engine-tls-cert (PEM)")
	fs.StringVar(&engineTLS.CA, "engine-ca", "", "the CA (PEM) that signed the engine's certificate")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 0 {
		return a.failUsage("health takes no arguments")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if *grpcAddr != "" {
		err = checkGRPC(ctx, *grpcAddr, engineTLS)
	} else {
		err = checkHTTP(ctx, a.cfg.url)
	}
	if err != nil {
		return a.fail(fmt.Errorf("unhealthy: %w", err))
	}
	fmt.Fprintln(a.stdout, "ok")
	return exitOK
}

func checkHTTP(ctx context.Context, rawURL string) error {
	u, err := httpURL(rawURL, "/healthz")
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	return nil
}

func checkGRPC(ctx context.Context, addr string, files mtls.Files) error {
	creds := insecure.NewCredentials()
	if files.Enabled() {
		tc, err := mtls.Client(files, "--engine-tls-cert, --engine-tls-key and --engine-ca")
		if err != nil {
			return err
		}
		creds = credentials.NewTLS(tc)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("%s: %s", addr, resp.GetStatus())
	}
	return nil
}
