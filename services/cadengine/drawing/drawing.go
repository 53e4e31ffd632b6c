// Package drawing is the engine's drawing model: a [Document] of entities
// ([Entity], each with a [Geometry] in world coordinates) on layers
// ([Layer]), the canonical encoding and fingerprint of an entity, the
// document's content hash ([Hash]) and the undo log every change goes
// through ([Tx]), which also enforces the rules of a write (a locked
// layer refuses changes to its entities; see [Error]).
//
// Every entity has a fingerprint, the hex SHA-256 of its canonical
// encoding (type, layer, linetype, colour and geometry in a fixed order,
// numbers as IEEE-754 bits, handle excluded; see [Entity.Encode]). The
// document's content hash is the lane-wise sum modulo 2^64 of the entity
// fingerprints, one digest per layer state and one for the current layer:
// order-independent, updated in O(1) per change and read in O(1).
//
// Handles are upper-case hex ([FormatHandle]); a document gives them out
// from 100 and never reuses one. A Document is not safe for
// concurrent use: the engine guards each with a lock.
package drawing
