-- Server requests between engines (DESIGN §7): a batch running on its
-- document's holder asks the client of a session another engine owns.
-- The asker inserts the request; the owner relays it and writes the first
-- answer; NOTIFY on cadbridge_requests_<schema> carries ids only.
CREATE TABLE server_requests (
	id         text COLLATE "C" PRIMARY KEY,
	session_id text COLLATE "C" NOT NULL,
	asker      text NOT NULL,                 -- the engine whose step waits
	frame      bytea NOT NULL,                -- proto ServerRequest, its id set
	params     bytea NOT NULL,                -- JSON, as the client gets them
	state      integer NOT NULL,              -- 1 open, 2 answered, 3 withdrawn
	answer     bytea,                         -- proto ServerRequestAnswer
	reason     integer NOT NULL DEFAULT 0,    -- CancelReason, once withdrawn
	opened_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX server_requests_open ON server_requests (session_id, opened_at, id) WHERE state = 1;
