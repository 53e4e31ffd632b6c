// Package e2e holds the end-to-end tests that build cadbridge's binaries and
// drive them over real sockets on loopback.
package e2e
