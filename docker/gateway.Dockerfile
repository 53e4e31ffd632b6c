# syntax=docker/dockerfile:1
#
# gateway: cadbridge's JSON-RPC edge (WebSocket and HTTP /rpc, REST /v1),
# a static binary on distroless. Build from the repository root:
#
#   docker build -f docker/gateway.Dockerfile -t cadbridge/gateway .
#
# Listening beyond loopback needs a tokens file ("TOKEN PRINCIPAL" lines)
# at CADBRIDGE_TOKENS; compose.yaml mounts docker/tokens.example there.
# The `go build` commands below are the ones docker/docker_test.go runs
# (with another output directory), so CI checks them without a Docker
# engine.

FROM golang:1.26 AS build
WORKDIR /src
# Module download layer: rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/gateway ./services/gateway/cmd/gateway
# cadctl is the health check, and a client inside the container.
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cadctl ./cmd/cadctl

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gateway /out/cadctl /usr/local/bin/
USER nonroot:nonroot
# Every flag has a CADBRIDGE_ environment equivalent (gateway --help).
ENV CADBRIDGE_LISTEN=0.0.0.0:7400 \
    CADBRIDGE_ENGINE=cadengine:7401 \
    CADBRIDGE_TOKENS=/etc/cadbridge/tokens
EXPOSE 7400
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/usr/local/bin/cadctl", "health", "--url", "http://127.0.0.1:7400"]
ENTRYPOINT ["/usr/local/bin/gateway"]
