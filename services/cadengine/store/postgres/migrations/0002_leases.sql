-- Document leases with fencing, and the registry of engines (DESIGN §7).
-- Times are the server's clock: no engine's clock decides who holds what.
CREATE TABLE document_leases (
	document_id text COLLATE "C" PRIMARY KEY,
	holder      text COLLATE "C" NOT NULL,      -- an engine id; '' once released
	epoch       bigint NOT NULL CHECK (epoch > 0), -- the fencing token, +1 for every grant
	expires_at  timestamptz NOT NULL
);

CREATE TABLE engines (
	id            text COLLATE "C" PRIMARY KEY,
	address       text NOT NULL,                -- --advertise
	registered_at timestamptz NOT NULL,
	heartbeat_at  timestamptz NOT NULL,
	expires_at    timestamptz NOT NULL
);

-- cadbridge_fence fails the transaction it runs in, with SQLSTATE CBF01,
-- unless the document's lease is still want_epoch of want_holder. It holds
-- the lease row FOR SHARE until the transaction ends, so that no grant
-- (an UPDATE of that row) can commit between the check and the commit of
-- the writes it guards.
CREATE FUNCTION cadbridge_fence(document text, want_holder text, want_epoch bigint) RETURNS void
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
	cur_holder text;
	cur_epoch  bigint;
BEGIN
	SELECT holder, epoch INTO cur_holder, cur_epoch FROM document_leases WHERE document_id = document FOR SHARE;
	IF NOT FOUND OR cur_holder <> want_holder OR cur_epoch <> want_epoch THEN
		RAISE EXCEPTION 'document % is leased at epoch % to "%", not at epoch % to "%"',
			document, coalesce(cur_epoch, 0), coalesce(cur_holder, ''), want_epoch, want_holder
			USING ERRCODE = 'CBF01';
	END IF;
END
$$;
