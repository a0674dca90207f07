-- Inbox schema v2: a key's identity is a 16-byte digest of (tenant, principal, operation, key),
-- and that digest is the primary key. The four text columns stay for reading (iox inspect, the
-- collision check) but are no longer indexed: a B-tree over four text columns made every claim
-- cost several times the write it guards (docs/adr/0021-inbox-key-digest.md).

-- SHA-256 over the four values, each preceded by its UTF-8 length, truncated to 16 bytes. The
-- length prefixes keep ('ab','c') and ('a','bc') apart. Claims, lookups and the upgrade compute it
-- here, in one place.
CREATE FUNCTION inbox_key_hash(tenant text, principal text, operation text, idempotency_key text)
    RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
SELECT substring(sha256(
           int4send(octet_length(convert_to(tenant, 'UTF8'))) || convert_to(tenant, 'UTF8')
        || int4send(octet_length(convert_to(principal, 'UTF8'))) || convert_to(principal, 'UTF8')
        || int4send(octet_length(convert_to(operation, 'UTF8'))) || convert_to(operation, 'UTF8')
        || int4send(octet_length(convert_to(idempotency_key, 'UTF8')))
        || convert_to(idempotency_key, 'UTF8')) FROM 1 FOR 16)
$$;

ALTER TABLE inbox ADD COLUMN key_hash bytea;

-- The request hash is still 64 hex digits, checked by decoding them: the regular expression this
-- replaces took about 10 us of the 33 us a claim cost per key (pgbench, 200 keys per statement).
-- NOT VALID: rows already stored passed the stricter expression; a new install validates below.
ALTER TABLE inbox
    DROP CONSTRAINT inbox_request_hash_is_sha256_hex,
    ADD CONSTRAINT inbox_request_hash_is_sha256_hex
        CHECK (octet_length(decode(request_hash, 'hex')) = 32) NOT VALID;

COMMENT ON COLUMN inbox.key_hash IS
    'inbox_key_hash(tenant, principal, operation, idempotency_key): the primary key from schema v2 on';

-- Writers that do not compute the digest (instances of the previous version during a rolling
-- upgrade, hand-written inserts) get it filled in, so their rows are found like everyone else's.
-- The claim statement computes it itself; for its rows the WHEN clause is false and the trigger
-- function never runs.
CREATE FUNCTION inbox_fill_key_hash() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    NEW.key_hash := inbox_key_hash(NEW.tenant, NEW.principal, NEW.operation, NEW.idempotency_key);
    RETURN NEW;
END
$$;

CREATE TRIGGER inbox_key_hash_fill
    BEFORE INSERT ON inbox
    FOR EACH ROW WHEN (NEW.key_hash IS NULL)
    EXECUTE FUNCTION inbox_fill_key_hash();

-- An empty inbox (a new install) becomes v2 at once. ADD COLUMN above holds the table's exclusive
-- lock until this migration commits, so no row can arrive between the check and the change. A
-- filled inbox keeps the v1 key until `iox inbox-upgrade` has filled and indexed the digest
-- online (docs/operations.md#upgrading-the-inbox-to-schema-v2).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM inbox) THEN
        ALTER TABLE inbox VALIDATE CONSTRAINT inbox_request_hash_is_sha256_hex;
        ALTER TABLE inbox ALTER COLUMN key_hash SET NOT NULL;
        ALTER TABLE inbox DROP CONSTRAINT inbox_pkey;
        ALTER TABLE inbox ADD CONSTRAINT inbox_pkey PRIMARY KEY (key_hash);
        -- Only rows with a body have something to prune: a bare success adds no index entry.
        DROP INDEX inbox_outcome_expires_at_idx;
        CREATE INDEX inbox_outcome_body_expires_at_idx ON inbox (outcome_expires_at)
            WHERE outcome_body IS NOT NULL AND outcome_pruned_at IS NULL;
    END IF;
END
$$;
