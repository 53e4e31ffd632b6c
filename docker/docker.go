// Package docker holds the container images (cadengine.Dockerfile,
// gateway.Dockerfile) and compose.yaml. No Docker engine runs in CI, so
// its test checks what it can: it runs the Dockerfiles' own go build
// commands, starts the binaries they make and runs their health checks,
// and parses compose.yaml.
package docker
