# syntax=docker/dockerfile:1
#
# cadengine: the CAD engine's gRPC service, a static binary on distroless.
# Build from the repository root:
#
#   docker build -f docker/cadengine.Dockerfile -t cadbridge/cadengine .
#
# The `go build` commands below are the ones docker/docker_test.go runs
# (with another output directory), so CI checks them without a Docker
# engine.

FROM golang:1.26 AS build
WORKDIR /src
# Module download layer: rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cadengine ./services/cadengine/cmd/cadengine
# cadctl is the health check (the final image has no shell or curl).
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cadctl ./cmd/cadctl
# The store's directory, and the one compose.yaml's certs service writes the
# mutual TLS certificates to, owned by the final image's nonroot user (65532).
RUN mkdir -p /out/data /out/certs && chown 65532:65532 /out/data /out/certs

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cadengine /out/cadctl /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chown=65532:65532 /out/certs /certs
USER nonroot:nonroot
# Every flag has a CADBRIDGE_ environment equivalent (cadengine --help).
# Listening beyond loopback needs mutual TLS: CADBRIDGE_TLS_CERT,
# CADBRIDGE_TLS_KEY and CADBRIDGE_CLIENT_CA (compose.yaml sets them).
ENV CADBRIDGE_LISTEN=0.0.0.0:7401 \
    CADBRIDGE_STORE=sqlite:/data/cadengine.db \
    CADBRIDGE_METRICS_LISTEN=0.0.0.0:7402
VOLUME /data
EXPOSE 7401 7402
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/usr/local/bin/cadctl", "health", "--grpc", "127.0.0.1:7401"]
ENTRYPOINT ["/usr/local/bin/cadengine"]
