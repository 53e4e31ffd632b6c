// Package architecture holds the test that keeps cadbridge's import
// arrows pointing one way (see ../shared/DESIGN.md §1): cmd → services →
// bridge; the engine never imports the gateway, nor the gateway the
// engine; bridge/jsonrpc and the engine's geometry use the standard
// library only; the drawing model, file formats and stores sit below the
// engine and never import it.
package architecture
