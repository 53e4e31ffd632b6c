// Package mtls builds the TLS configurations of the link between cadbridge's
// services: the engine serves TLS and requires a client certificate signed
// by the CA it is given; a gateway (or cadctl) presents its certificate and
// trusts only the engine certificates that CA signed. Certificates are read
// from PEM files once, when the configuration is built.
package mtls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// Files names the PEM files of one side of the link.
type Files struct {
	// Cert and Key are this side's certificate (chain) and private key.
	Cert, Key string
	// CA is the certificate authority the other side's certificate must
	// chain to.
	CA string
}

// Enabled reports whether any file is named.
func (f Files) Enabled() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// check fails unless all three files are named; what names the flags
// (for example "--tls-cert, --tls-key and --client-ca").
func (f Files) check(what string) error {
	if f.Cert == "" || f.Key == "" || f.CA == "" {
		return fmt.Errorf("mutual TLS needs all of %s", what)
	}
	return nil
}

// Server is the engine's configuration: it presents f.Cert and refuses,
// during the handshake, any client without a certificate that chains to
// f.CA. what names the flags, for errors.
func Server(f Files, what string) (*tls.Config, error) {
	return config(f, what, func(c *tls.Config, pool *x509.CertPool) {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, pool
	})
}

// Client is a caller's configuration: it presents f.Cert and trusts only
// server certificates that chain to f.CA (for the host it dials). what
// names the flags, for errors.
func Client(f Files, what string) (*tls.Config, error) {
	return config(f, what, func(c *tls.Config, pool *x509.CertPool) { c.RootCAs = pool })
}

// config loads f into a TLS 1.3 configuration that presents f.Cert, and
// lets trust say how f.CA is used.
func config(f Files, what string, trust func(*tls.Config, *x509.CertPool)) (*tls.Config, error) {
	if err := f.check(what); err != nil {
		return nil, err
	}
	cert, pool, err := load(f)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}}
	trust(c, pool)
	return c, nil
}

func load(f Files) (tls.Certificate, *x509.CertPool, error) {
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("certificate %s, key %s: %w", f.Cert, f.Key, err)
	}
	data, err := os.ReadFile(f.CA)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return tls.Certificate{}, nil, fmt.Errorf("CA %s: no PEM certificate in it", f.CA)
	}
	return cert, pool, nil
}

// IsLoopback reports whether the listen address addr ("host:port") binds
// loopback only: localhost or a loopback IP. An empty host, 0.0.0.0 or ::
// (every interface) and any other name are not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrOpenOffLoopback is the refusal to serve the engine without mutual TLS
// on an address other machines reach.
var ErrOpenOffLoopback = errors.New("the engine takes its callers' principals on trust: off loopback it needs mutual TLS")
