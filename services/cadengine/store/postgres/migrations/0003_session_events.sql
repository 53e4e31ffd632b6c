-- Sessions' event logs (DESIGN §3, §7): each session's newest events, by
-- seq, so that a session resumed on another engine replays what its client
-- has not seen. Only the engine holding the session's lease (the
-- document_leases row keyed 'session:' || id) appends, fenced as a commit is.
CREATE TABLE session_events (
	session_id text COLLATE "C" NOT NULL,
	seq        bigint NOT NULL,
	type       text NOT NULL,
	payload    bytea NOT NULL,   -- JSON, opaque to the store
	PRIMARY KEY (session_id, seq)
);
