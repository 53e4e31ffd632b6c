// Package viewer is the page the gateway serves under GET /viewer/: a
// person opens it beside an agent to watch the drawing as it is made and to
// answer the agent's approvals and picks. It is plain HTML, CSS and
// JavaScript modules embedded in the binary (nothing to build or install),
// and an ordinary JSON-RPC client of the gateway's /rpc over WebSocket: it
// opens or resumes a session of its own, declares the server requests it
// answers (approval, pick.point, pick.entities), subscribes to the document
// it shows and redraws it from its SVG export on every document.changed;
// with a fragment #session=ses-…&token=rt-… it also attaches to that
// session (session.attach) as one more surface. It reconnects and resumes
// by itself.
//
// The package holds the files and their HTTP handler only; it imports the
// standard library alone.
package viewer

import (
	"embed"
	"io/fs"
	"net/http"
)

// static is the page: index.html and the files it loads.
//
//go:embed static
var static embed.FS

// Prefix is the path the gateway serves the viewer under.
const Prefix = "/viewer/"

// Files are the viewer's files (index.html at the root).
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return sub
}

// Handler serves the viewer's files under Prefix. The page holds no data
// (it reads everything through /rpc, which authenticates), so the files
// are served to anyone who may reach the gateway. Responses are not cached
// without a check, so a new gateway's page replaces the old at once, and
// the page may reach only its own origin.
func Handler() http.Handler {
	files := http.StripPrefix(Prefix, http.FileServerFS(Files()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		files.ServeHTTP(w, r)
	})
}
