-- Sessions' events handed between engines (DESIGN §7): a batch running on
-- its document's holder, for a session another engine owns, hands the
-- events it emits for the session to the owner, which emits them into the
-- session's log and deletes the row in the same transaction as that
-- append. NOTIFY on cadbridge_handoffs_<schema> carries the session id.
CREATE TABLE event_handoffs (
	id         text COLLATE "C" PRIMARY KEY,  -- chosen by the engine handing over
	n          bigserial,                     -- the order of the handoffs
	session_id text COLLATE "C" NOT NULL,
	types      text[] NOT NULL,
	payloads   bytea[] NOT NULL               -- JSON, opaque to the store
);
CREATE INDEX event_handoffs_session ON event_handoffs (session_id, n);
