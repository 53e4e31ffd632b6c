package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/devcert"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// pkiFiles are the PEM files of one test PKI: a CA, the engine's server
// certificate for 127.0.0.1, a gateway's client certificate, and a client
// certificate from another CA the engine does not trust.
type pkiFiles struct {
	ca, engineCert, engineKey, gatewayCert, gatewayKey, rogueCert, rogueKey string
}

func makePKI(t *testing.T) pkiFiles {
	t.Helper()
	dir := t.TempDir()
	ca, err := devcert.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	rogue, err := devcert.NewCA("rogue CA")
	if err != nil {
		t.Fatal(err)
	}
	var f pkiFiles
	if f.ca, err = ca.Write(dir, "ca"); err != nil {
		t.Fatal(err)
	}
	write := func(name string, p devcert.Pair, err error) (string, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		cert, key, err := p.Write(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		return cert, key
	}
	p, err := ca.Server("cadengine", "127.0.0.1", "localhost")
	f.engineCert, f.engineKey = write("cadengine", p, err)
	p, err = ca.Client("gateway")
	f.gatewayCert, f.gatewayKey = write("gateway", p, err)
	p, err = rogue.Client("gateway")
	f.rogueCert, f.rogueKey = write("rogue", p, err)
	return f
}

// TestMutualTLS runs an engine with mutual TLS: callers without a
// certificate, with one of another CA, or in plaintext are refused in the
// handshake and no call of theirs runs; a gateway with the right
// certificate works, and so does cadctl health with one.
func TestMutualTLS(t *testing.T) {
	pki := makePKI(t)
	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:", "--tls-cert", pki.engineCert, "--tls-key", pki.engineKey, "--client-ca", pki.ca)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(mustRead(t, pki.ca))
	rogue, err := tls.LoadX509KeyPair(pki.rogueCert, pki.rogueKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		creds credentials.TransportCredentials
	}{
		{"plaintext", insecure.NewCredentials()},
		{"no certificate", credentials.NewTLS(&tls.Config{RootCAs: pool})},
		{"certificate of another CA", credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{rogue}})},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := grpc.NewClient(engine.Addr, grpc.WithTransportCredentials(c.creds))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := enginev1.NewEngineServiceClient(conn).CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: new("intruder")}); err == nil {
				t.Errorf("CreateDocument with %s = nil error, want refused", c.name)
			}
			if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err == nil {
				t.Errorf("health check with %s = nil error, want refused", c.name)
			}
		})
	}

	gw := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr, "--engine-tls-cert", pki.gatewayCert, "--engine-tls-key", pki.gatewayKey, "--engine-ca", pki.ca)
	c := &httpClient{url: "http://" + gw.Addr + "/rpc"}
	var list struct {
		Documents []struct {
			Name string `json:"name"`
		} `json:"documents"`
	}
	mustCall(t, c, 1, "document.list", map[string]any{}, &list)
	if len(list.Documents) != 0 {
		t.Errorf("documents after the refused callers = %+v, want none: no call of theirs ran", list.Documents)
	}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 2, "document.create", map[string]any{"name": "trusted"}, &doc)
	if !strings.HasPrefix(doc.DocumentID, "doc-") {
		t.Errorf("document.create through the trusted gateway = %+v", doc)
	}

	plain := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr)
	if resp := call(t, &httpClient{url: "http://" + plain.Addr + "/rpc"}, 3, "document.create", map[string]any{}); resp.Error == nil || resp.Error.Code != 5003 {
		t.Errorf("document.create through a gateway without certificates = %+v, want 5003", resp)
	}

	health := func(args ...string) error {
		out, err := exec.Command(proctest.Bin("cadctl"), append([]string{"health", "--grpc", engine.Addr}, args...)...).CombinedOutput()
		if err != nil {
			t.Logf("cadctl health %v: %s", args, out)
		}
		return err
	}
	if err := health("--engine-tls-cert", pki.gatewayCert, "--engine-tls-key", pki.gatewayKey, "--engine-ca", pki.ca); err != nil {
		t.Errorf("cadctl health with the gateway's certificate = %v, want ok", err)
	}
	if err := health(); err == nil {
		t.Errorf("cadctl health without a certificate = ok, want unhealthy")
	}
}

// TestEngineRefusesOpenOffLoopback: an engine told to listen beyond
// loopback without mutual TLS does not start.
func TestEngineRefusesOpenOffLoopback(t *testing.T) {
	cmd := exec.Command(proctest.Bin("cadengine"), "--listen", "0.0.0.0:0", "--store", "memory:", "--metrics-listen", "")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("cadengine --listen 0.0.0.0:0 without TLS is still running, want it refused")
	}
	if err == nil || !strings.Contains(string(out), "mutual TLS") || strings.Contains(string(out), "cadengine listening") {
		t.Errorf("cadengine --listen 0.0.0.0:0 without TLS = %v, output %q; want a refusal naming mutual TLS", err, out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
