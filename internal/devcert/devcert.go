// Package devcert makes a certificate authority and the certificates that
// cadbridge's services present to each other over mutual TLS: for tests,
// and for deployments that have no PKI of their own (cadctl certs, which
// docker/compose.yaml runs once). Keys are ECDSA P-256; certificates are
// valid for a year.
package devcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// validity is how long the certificates are valid.
const validity = 365 * 24 * time.Hour

// CA is a certificate authority that signs certificates.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA's certificate, for the other side to trust.
	PEM []byte
}

// Pair is a certificate and its private key, PEM-encoded.
type Pair struct {
	Cert, Key []byte
}

// NewCA makes a self-signed certificate authority named name.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl, err := template(name)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Server issues a server certificate named name for hosts (DNS names or
// IP addresses).
func (ca *CA) Server(name string, hosts ...string) (Pair, error) {
	return ca.issue(name, hosts, x509.ExtKeyUsageServerAuth)
}

// Client issues a client certificate named name.
func (ca *CA) Client(name string) (Pair, error) {
	return ca.issue(name, nil, x509.ExtKeyUsageClientAuth)
}

func (ca *CA) issue(name string, hosts []string, usage x509.ExtKeyUsage) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	tmpl, err := template(name)
	if err != nil {
		return Pair{}, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return Pair{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Pair{}, err
	}
	return Pair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func template(name string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name, Organization: []string{"cadbridge"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
	}, nil
}

// Write writes the pair to dir as name.crt and name.key (the key readable
// by its owner only), and returns the two paths.
func (p Pair) Write(dir, name string) (cert, key string, err error) {
	cert, key = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(cert, p.Cert, 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(key, p.Key, 0o600); err != nil {
		return "", "", fmt.Errorf("write key: %w", err)
	}
	return cert, key, nil
}

// Write writes the CA's certificate (not its key) to dir as name.crt and
// returns the path.
func (ca *CA) Write(dir, name string) (string, error) {
	path := filepath.Join(dir, name+".crt")
	return path, os.WriteFile(path, ca.PEM, 0o644)
}
