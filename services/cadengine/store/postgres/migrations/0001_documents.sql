-- Documents, their entities, the operation journal and sessions: what the
-- SQLite store keeps, with ids in byte order (COLLATE "C") so that every
-- store loads in the same order.
CREATE TABLE documents (
	id            text COLLATE "C" PRIMARY KEY,
	name          text NOT NULL,
	units         integer NOT NULL,
	created_at    bigint NOT NULL,  -- Unix nanoseconds
	revision      bigint NOT NULL,
	next_handle   bigint NOT NULL,
	current_layer text NOT NULL,
	layers        jsonb NOT NULL,   -- array of LayerRecord
	content_hash  text NOT NULL
);

-- No foreign key to documents: the store writes entities only in the
-- commit that writes their document's row, and the check would cost a
-- lookup and a trigger per inserted entity (as much as the insert itself).
CREATE TABLE entities (
	document_id text COLLATE "C" NOT NULL,
	handle      bigint NOT NULL,
	data        bytea NOT NULL,     -- canonical encoding, opaque to the store
	PRIMARY KEY (document_id, handle)
);

CREATE TABLE operations (
	principal       text COLLATE "C" NOT NULL,
	id              text COLLATE "C" NOT NULL,
	kind            text NOT NULL,
	document_id     text NOT NULL,
	request_hash    bytea NOT NULL,
	status          integer NOT NULL,   -- OperationStatus
	committed_steps integer[] NOT NULL, -- step indexes, ascending
	revision        bigint NOT NULL,
	response        bytea,              -- proto ExecuteBatchResponse
	started_at      bigint NOT NULL,    -- Unix nanoseconds
	finished_at     bigint NOT NULL,    -- Unix nanoseconds, 0 while running
	PRIMARY KEY (principal, id)
);
CREATE INDEX operations_started_at ON operations (started_at, principal, id);
CREATE INDEX operations_finished_at ON operations (finished_at) WHERE finished_at <> 0;

CREATE TABLE sessions (
	id   text COLLATE "C" PRIMARY KEY,
	data bytea NOT NULL                 -- opaque to the store
);
