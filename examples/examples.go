// Package examples holds batches a new user can run as they are with
// cadctl (see README.md here); its test runs each one against real
// services and compares the drawing with the SVG checked in beside it.
package examples
