package docker_test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	keyword string // upper case: FROM, RUN, …
	args    string
}

// parseDockerfile reads the instructions of a Dockerfile.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		keyword, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{keyword: strings.ToUpper(keyword), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// buildCommand is the RUN … go build command of a Dockerfile without its
// RUN flags (--mount=…).
var buildFlags = regexp.MustCompile(`^(--[a-z]+=\S+\s+)+`)

func buildCommands(t *testing.T, ins []instruction) []string {
	t.Helper()
	var cmds []string
	for _, in := range ins {
		if in.keyword == "RUN" && strings.Contains(in.args, "go build") {
			cmds = append(cmds, buildFlags.ReplaceAllString(in.args, ""))
		}
	}
	return cmds
}

// image describes what a Dockerfile must build.
type image struct {
	dockerfile string
	binaries   []string // that its go build commands write to /out
}

var images = []image{
	{"cadengine.Dockerfile", []string{"cadengine", "cadctl"}},
	{"gateway.Dockerfile", []string{"gateway", "cadctl"}},
}

// TestDockerfiles checks each Dockerfile's shape: a build stage that
// downloads modules in a layer of their own, static builds, a final
// distroless or scratch stage that runs as a non-root user with a health
// check.
func TestDockerfiles(t *testing.T) {
	static := regexp.MustCompile(`^CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/(\S+) \./\S+$`)
	for _, im := range images {
		t.Run(im.dockerfile, func(t *testing.T) {
			ins := parseDockerfile(t, im.dockerfile)
			var froms []string
			download, copyAll := -1, -1
			for i, in := range ins {
				switch {
				case in.keyword == "FROM":
					froms = append(froms, in.args)
				case in.keyword == "RUN" && in.args == "go mod download":
					download = i
				case in.keyword == "COPY" && in.args == ". .":
					copyAll = i
				}
			}
			if len(froms) < 2 || !strings.Contains(froms[0], " AS build") {
				t.Errorf("stages %q: want a build stage and a final one", froms)
			}
			if final := froms[len(froms)-1]; !strings.HasPrefix(final, "gcr.io/distroless/static") && final != "scratch" {
				t.Errorf("final image %q: want distroless static or scratch", final)
			}
			if download < 1 || copyAll < 0 || download > copyAll || ins[download-1].args != "go.mod go.sum ./" {
				t.Errorf("want COPY go.mod go.sum ./ and RUN go mod download before COPY . . (a module download layer)")
			}
			var built []string
			for _, cmd := range buildCommands(t, ins) {
				m := static.FindStringSubmatch(cmd)
				if m == nil {
					t.Errorf("build command %q: want %s", cmd, static)
					continue
				}
				built = append(built, m[1])
			}
			if !slices.Equal(built, im.binaries) {
				t.Errorf("builds %q, want %q", built, im.binaries)
			}
			final := ins[slices.IndexFunc(ins, func(in instruction) bool { return in.keyword == "FROM" && in.args == froms[len(froms)-1] }):]
			user, health := "", ""
			for _, in := range final {
				switch in.keyword {
				case "USER":
					user = in.args
				case "HEALTHCHECK":
					health = in.args
				}
			}
			if user == "" || user == "root" || strings.HasPrefix(user, "0") {
				t.Errorf("USER %q: want a non-root user", user)
			}
			if !strings.Contains(health, "CMD [") {
				t.Errorf("HEALTHCHECK %q: want an exec-form command", health)
			}
		})
	}
}

// TestImageBinaries runs the Dockerfiles' go build commands exactly (with
// the output directory swapped), checks that the binaries are static,
// starts them as the images and compose.yaml configure them (on loopback),
// and runs the images' health checks against them.
func TestImageBinaries(t *testing.T) {
	root, err := proctest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	health := map[string][]string{}
	for _, im := range images {
		ins := parseDockerfile(t, im.dockerfile)
		for _, cmd := range buildCommands(t, ins) {
			cmd = strings.ReplaceAll(cmd, " -o /out/", " -o "+out+"/")
			sh := exec.Command("sh", "-c", cmd)
			sh.Dir = root
			if data, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cmd, err, data)
			}
		}
		for _, in := range ins {
			if in.keyword == "HEALTHCHECK" {
				_, exe, _ := strings.Cut(in.args, "CMD ")
				var argv []string
				if err := json.Unmarshal([]byte(exe), &argv); err != nil {
					t.Fatalf("%s: HEALTHCHECK CMD %s: %v", im.dockerfile, exe, err)
				}
				health[im.dockerfile] = argv
			}
		}
	}
	for _, name := range []string{"cadengine", "gateway", "cadctl"} {
		checkStatic(t, filepath.Join(out, name))
	}

	engine := proctest.StartBinary(t, proctest.EngineAnnounce, filepath.Join(out, "cadengine"),
		"--listen", "127.0.0.1:0", "--store", "sqlite:"+filepath.Join(t.TempDir(), "cadengine.db"), "--metrics-listen", "")
	gateway := proctest.StartBinary(t, proctest.GatewayAnnounce, filepath.Join(out, "gateway"),
		"--listen", "127.0.0.1:0", "--engine", engine.Addr, "--tokens", "tokens.example")

	for dockerfile, argv := range health {
		args := slices.Clone(argv[1:])
		for i, a := range args {
			a = strings.ReplaceAll(a, "127.0.0.1:7401", engine.Addr)
			args[i] = strings.ReplaceAll(a, "127.0.0.1:7400", gateway.Addr)
		}
		cmd := exec.Command(filepath.Join(out, filepath.Base(argv[0])), args...)
		if data, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s health check %v: %v\n%s", dockerfile, args, err, data)
		}
	}

	checkStatus(t, gateway.Addr)

	// compose.yaml's mutual TLS with these binaries: the certs service's
	// command writes the certificates (to a temporary directory standing
	// for the volume), the engine and the gateway start with the TLS
	// settings compose gives them, and the engine's compose health check
	// passes.
	compose := readCompose(t)
	dir := t.TempDir()
	local := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			out[i] = strings.ReplaceAll(a, "/certs", dir)
		}
		return out
	}
	certs := local(compose.Services["certs"].Entrypoint)
	if data, err := exec.Command(filepath.Join(out, filepath.Base(certs[0])), certs[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("certs %v: %v\n%s", certs, err, data)
	}
	tlsEngine := proctest.StartBinary(t, proctest.EngineAnnounce, filepath.Join(out, "cadengine"),
		append([]string{"--listen", "127.0.0.1:0", "--store", "memory:", "--metrics-listen", ""}, local(tlsFlags(compose.Services["cadengine"].Environment))...)...)
	check := local(compose.Services["cadengine"].Healthcheck.Test[1:])
	for i, a := range check {
		check[i] = strings.ReplaceAll(a, "127.0.0.1:7401", tlsEngine.Addr)
	}
	if data, err := exec.Command(filepath.Join(out, filepath.Base(check[0])), check[1:]...).CombinedOutput(); err != nil {
		t.Errorf("compose health check %v: %v\n%s", check, err, data)
	}
	tlsGateway := proctest.StartBinary(t, proctest.GatewayAnnounce, filepath.Join(out, "gateway"),
		append([]string{"--listen", "127.0.0.1:0", "--engine", tlsEngine.Addr, "--tokens", "tokens.example"}, local(tlsFlags(compose.Services["gateway"].Environment))...)...)
	checkStatus(t, tlsGateway.Addr)
}

// tlsFlags turns the TLS settings of a service's environment
// (CADBRIDGE_TLS_CERT, CADBRIDGE_ENGINE_CA, …) into the flags they stand
// for (--tls-cert, --engine-ca, …).
func tlsFlags(env map[string]string) []string {
	var keys []string
	for k := range env {
		if name, ok := strings.CutPrefix(k, "CADBRIDGE_"); ok && (strings.Contains(name, "TLS") || strings.HasSuffix(name, "_CA")) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var flags []string
	for _, k := range keys {
		flags = append(flags, "--"+strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(k, "CADBRIDGE_")), "_", "-"), env[k])
	}
	return flags
}

// checkStatus checks that the gateway at addr answers system.status with
// the token of tokens.example, which proves that it reaches the engine.
func checkStatus(t *testing.T, addr string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"system.status"}`))
	req.Header.Set("Authorization", "Bearer dev-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var status struct {
		Result struct {
			Engine struct {
				Ready bool   `json:"ready"`
				Store string `json:"store"`
			} `json:"engine"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &status) != nil || !status.Result.Engine.Ready || (status.Result.Engine.Store != "sqlite" && status.Result.Engine.Store != "memory") {
		t.Errorf("system.status of %s = %s, want a ready engine", addr, body)
	}
}

// checkStatic fails unless path is an ELF file that needs no dynamic
// loader or shared library, as a distroless/static or scratch image
// requires.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s is dynamically linked (%s)", filepath.Base(path), p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", filepath.Base(path), libs)
	}
}

// service is a service of compose.yaml.
type service struct {
	Build struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Image       string            `yaml:"image"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Expose      []string          `yaml:"expose"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck struct {
		Test     []string `yaml:"test"`
		Interval string   `yaml:"interval"`
		Timeout  string   `yaml:"timeout"`
		Retries  int      `yaml:"retries"`
	} `yaml:"healthcheck"`
	DependsOn yaml.Node `yaml:"depends_on"`
	Restart   string    `yaml:"restart"`
}

// composeFile is compose.yaml.
type composeFile struct {
	Name     string             `yaml:"name"`
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

// readCompose parses compose.yaml strictly (an unknown key fails).
func readCompose(t *testing.T) composeFile {
	t.Helper()
	return readComposeFile(t, "compose.yaml")
}

// readComposeFile parses a compose file of docker/ strictly.
func readComposeFile(t *testing.T, name string) composeFile {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var compose composeFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&compose); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return compose
}

// dependsOn is a service's depends_on, by service, in its long form.
func dependsOn(t *testing.T, s service) map[string]string {
	t.Helper()
	var deps map[string]struct {
		Condition string `yaml:"condition"`
	}
	if err := s.DependsOn.Decode(&deps); err != nil {
		t.Errorf("depends_on: want the long form with conditions (%v)", err)
	}
	out := map[string]string{}
	for name, d := range deps {
		out[name] = d.Condition
	}
	return out
}

// TestCompose parses compose.yaml and checks its services: the one-shot
// certs service, the engine with a volume for its store and mutual TLS
// from the certificates, the gateway in front of it with its tokens and
// its client certificate, and Jaeger receiving both services' traces over
// OTLP.
func TestCompose(t *testing.T) {
	compose := readCompose(t)
	var names []string
	for name := range compose.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"cadengine", "certs", "gateway", "jaeger"}) {
		t.Fatalf("services %v, want cadengine, certs, gateway, jaeger", names)
	}
	engine, gateway, jaeger, certs := compose.Services["cadengine"], compose.Services["gateway"], compose.Services["jaeger"], compose.Services["certs"]

	for name, s := range map[string]service{"cadengine": engine, "gateway": gateway} {
		if _, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile)); err != nil || s.Build.Context != ".." {
			t.Errorf("%s builds %s in %q: want a Dockerfile of docker/ built from the repository root (%v)", name, s.Build.Dockerfile, s.Build.Context, err)
		}
		if ep := s.Environment["OTEL_EXPORTER_OTLP_ENDPOINT"]; ep != "http://jaeger:4317" {
			t.Errorf("%s OTEL_EXPORTER_OTLP_ENDPOINT = %q, want http://jaeger:4317", name, ep)
		}
		if s.Environment["OTEL_SERVICE_NAME"] != name {
			t.Errorf("%s OTEL_SERVICE_NAME = %q", name, s.Environment["OTEL_SERVICE_NAME"])
		}
	}
	if !slices.Contains(engine.Volumes, "engine-data:/data") {
		t.Errorf("cadengine volumes %v: want engine-data:/data, the store's directory", engine.Volumes)
	}
	if _, ok := compose.Volumes["engine-data"]; !ok {
		t.Errorf("volume engine-data is not declared")
	}
	if !slices.Contains(engine.Ports, "127.0.0.1:7401:7401") {
		t.Errorf("cadengine ports %v: want 127.0.0.1:7401:7401", engine.Ports)
	}
	if !slices.Contains(gateway.Ports, "127.0.0.1:7400:7400") {
		t.Errorf("gateway ports %v: want 127.0.0.1:7400:7400", gateway.Ports)
	}
	if gateway.Environment["CADBRIDGE_ENGINE"] != "cadengine:7401" {
		t.Errorf("gateway CADBRIDGE_ENGINE = %q, want cadengine:7401", gateway.Environment["CADBRIDGE_ENGINE"])
	}
	tokens := gateway.Environment["CADBRIDGE_TOKENS"]
	mounted := false
	for _, v := range gateway.Volumes {
		src, dst, _ := strings.Cut(v, ":")
		if strings.HasPrefix(dst, tokens+":") || dst == tokens {
			_, err := os.Stat(src)
			mounted = err == nil
		}
	}
	if tokens == "" || !mounted {
		t.Errorf("gateway: CADBRIDGE_TOKENS %q must name a file mounted from docker/ (volumes %v)", tokens, gateway.Volumes)
	}
	if deps := dependsOn(t, gateway); deps["cadengine"] != "service_healthy" {
		t.Errorf("gateway depends_on %v: want cadengine with condition service_healthy", deps)
	}

	// Mutual TLS: certs writes the certificates to the volume certs, once,
	// before the engine starts; the engine and the gateway read theirs
	// from it, and the engine's health check presents cadctl's.
	if len(certs.Entrypoint) < 3 || certs.Entrypoint[0] != "/usr/local/bin/cadctl" || certs.Entrypoint[1] != "certs" || !slices.Contains(certs.Volumes, "certs:/certs") || certs.Restart != "no" {
		t.Errorf("certs = %+v: want a one-shot cadctl certs writing to the volume certs", certs)
	}
	if _, ok := compose.Volumes["certs"]; !ok {
		t.Errorf("volume certs is not declared")
	}
	if deps := dependsOn(t, engine); deps["certs"] != "service_completed_successfully" {
		t.Errorf("cadengine depends_on %v: want certs with condition service_completed_successfully", deps)
	}
	for name, s := range map[string]service{"cadengine": engine, "gateway": gateway} {
		if !slices.Contains(s.Volumes, "certs:/certs:ro") {
			t.Errorf("%s volumes %v: want certs:/certs:ro", name, s.Volumes)
		}
	}
	for _, v := range []string{"CADBRIDGE_TLS_CERT", "CADBRIDGE_TLS_KEY", "CADBRIDGE_CLIENT_CA"} {
		if !strings.HasPrefix(engine.Environment[v], "/certs/") {
			t.Errorf("cadengine %s = %q, want a file of /certs", v, engine.Environment[v])
		}
	}
	for _, v := range []string{"CADBRIDGE_ENGINE_TLS_CERT", "CADBRIDGE_ENGINE_TLS_KEY", "CADBRIDGE_ENGINE_CA"} {
		if !strings.HasPrefix(gateway.Environment[v], "/certs/") {
			t.Errorf("gateway %s = %q, want a file of /certs", v, gateway.Environment[v])
		}
	}
	if test := engine.Healthcheck.Test; len(test) < 2 || test[0] != "CMD" || !slices.Contains(test, "--engine-tls-cert") {
		t.Errorf("cadengine healthcheck %v: want cadctl health --grpc over mutual TLS", test)
	}
	if !strings.HasPrefix(jaeger.Image, "jaegertracing/") || !slices.Contains(jaeger.Ports, "127.0.0.1:16686:16686") || !slices.Contains(jaeger.Expose, "4317") {
		t.Errorf("jaeger = %+v: want a Jaeger image with its UI on 16686 and OTLP gRPC on 4317", jaeger)
	}
}

// TestComposePostgres parses compose.postgres.yaml: PostgreSQL with a
// health check, two engines on it (each advertising its own service name,
// over mutual TLS, started once PostgreSQL is healthy), and two gateways
// each given both engines, homes crossed, started once both are healthy.
func TestComposePostgres(t *testing.T) {
	compose := readComposeFile(t, "compose.postgres.yaml")
	var names []string
	for name := range compose.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"cadengine-a", "cadengine-b", "certs", "gateway-a", "gateway-b", "postgres"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	pg := compose.Services["postgres"]
	if !strings.HasPrefix(pg.Image, "postgres:") || len(pg.Healthcheck.Test) < 2 || pg.Healthcheck.Test[1] != "pg_isready" {
		t.Errorf("postgres = %+v: want a postgres image with a pg_isready health check", pg)
	}
	if !slices.Contains(compose.Services["certs"].Entrypoint, "cadengine-a,cadengine-b,localhost,127.0.0.1") {
		t.Errorf("certs entrypoint %v: want the engine certificate for cadengine-a and cadengine-b", compose.Services["certs"].Entrypoint)
	}
	store := ""
	for _, name := range []string{"cadengine-a", "cadengine-b"} {
		e := compose.Services[name]
		if !strings.HasPrefix(e.Environment["CADBRIDGE_STORE"], "postgres://") || !strings.Contains(e.Environment["CADBRIDGE_STORE"], "@postgres:5432/") {
			t.Errorf("%s CADBRIDGE_STORE = %q, want the postgres service", name, e.Environment["CADBRIDGE_STORE"])
		}
		if store == "" {
			store = e.Environment["CADBRIDGE_STORE"]
		} else if e.Environment["CADBRIDGE_STORE"] != store {
			t.Errorf("the engines have different stores")
		}
		if e.Environment["CADBRIDGE_ADVERTISE"] != name+":7401" {
			t.Errorf("%s CADBRIDGE_ADVERTISE = %q, want %s:7401", name, e.Environment["CADBRIDGE_ADVERTISE"], name)
		}
		if e.Environment["CADBRIDGE_LEASE_TTL"] == "" {
			t.Errorf("%s: no CADBRIDGE_LEASE_TTL", name)
		}
		if test := e.Healthcheck.Test; len(test) < 2 || !slices.Contains(test, "--engine-tls-cert") {
			t.Errorf("%s healthcheck %v: want cadctl health --grpc over mutual TLS", name, test)
		}
		if deps := dependsOn(t, e); deps["postgres"] != "service_healthy" || deps["certs"] != "service_completed_successfully" {
			t.Errorf("%s depends_on %v: want postgres healthy and certs completed", name, deps)
		}
		if !strings.HasPrefix(e.Environment["CADBRIDGE_TLS_CERT"], "/certs/") {
			t.Errorf("%s: want mutual TLS from /certs", name)
		}
	}
	for name, engines := range map[string]string{"gateway-a": "cadengine-a:7401,cadengine-b:7401", "gateway-b": "cadengine-b:7401,cadengine-a:7401"} {
		g := compose.Services[name]
		if g.Environment["CADBRIDGE_ENGINE"] != engines {
			t.Errorf("%s CADBRIDGE_ENGINE = %q, want %q", name, g.Environment["CADBRIDGE_ENGINE"], engines)
		}
		if deps := dependsOn(t, g); deps["cadengine-a"] != "service_healthy" || deps["cadengine-b"] != "service_healthy" {
			t.Errorf("%s depends_on %v: want both engines healthy", name, deps)
		}
		if !strings.HasPrefix(g.Environment["CADBRIDGE_ENGINE_TLS_CERT"], "/certs/") || g.Environment["CADBRIDGE_TOKENS"] == "" {
			t.Errorf("%s: want tokens and mutual TLS to the engines", name)
		}
	}
	if !slices.Contains(compose.Services["gateway-a"].Ports, "127.0.0.1:7400:7400") || !slices.Contains(compose.Services["gateway-b"].Ports, "127.0.0.1:7410:7400") {
		t.Errorf("gateway ports: want 127.0.0.1:7400 and 127.0.0.1:7410")
	}
	for _, v := range []string{"pg-data", "certs"} {
		if _, ok := compose.Volumes[v]; !ok {
			t.Errorf("volume %s is not declared", v)
		}
	}
}
