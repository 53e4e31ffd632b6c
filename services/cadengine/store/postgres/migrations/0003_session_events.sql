-- Sessions' event logs (DESIGN §3, §7): each session's newest events, so
-- that a session resumed on another engine replays what its client has not
-- seen. A row is one append, its events as arrays (one row, not one per
-- event: an engine appends a batch's events a flush at a time). Only the
-- engine holding the session's lease (the document_leases row keyed
-- 'session:' || id) appends, fenced as a commit is.
CREATE TABLE session_events (
	session_id text COLLATE "C" NOT NULL,
	id         bigserial,            -- append order: of two copies of a seq, the first stays
	last_seq   bigint NOT NULL,      -- the newest seq of the append
	keep       bigint NOT NULL,      -- how many newest events the log keeps, as of this append
	seqs       bigint[] NOT NULL,
	types      text[] NOT NULL,
	payloads   bytea[] NOT NULL,     -- JSON, opaque to the store
	-- The server's start as of the append, which is committed with
	-- synchronous_commit off: an append older than the server's current
	-- start may have had newer ones that a crash lost.
	server_start timestamptz NOT NULL DEFAULT pg_postmaster_start_time(),
	PRIMARY KEY (session_id, id)
);
