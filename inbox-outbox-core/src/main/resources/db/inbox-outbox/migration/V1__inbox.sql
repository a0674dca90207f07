-- The inbox: one row per idempotency key claimed within a scope.
-- The primary key is the unique index that makes a claim atomic: INSERT ... ON CONFLICT DO NOTHING
-- lets exactly one transaction own a (scope, key); a concurrent duplicate waits on the index entry
-- and then sees the winner's row. An absent tenant or principal is '' (not NULL), because NULLs
-- never collide in a unique index and would let duplicates through.
CREATE TABLE inbox (
    tenant             text        NOT NULL DEFAULT '',
    principal          text        NOT NULL DEFAULT '',
    operation          text        NOT NULL,
    idempotency_key    text        NOT NULL,
    request_hash       text        NOT NULL,
    status             text        NOT NULL DEFAULT 'PROCESSING',
    outcome_kind       text,
    outcome_code       integer,
    outcome_body       jsonb,
    created_at         timestamptz NOT NULL DEFAULT now(),
    completed_at       timestamptz,
    outcome_expires_at timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    outcome_pruned_at  timestamptz,
    CONSTRAINT inbox_pkey PRIMARY KEY (tenant, principal, operation, idempotency_key),
    CONSTRAINT inbox_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
    CONSTRAINT inbox_request_hash_is_sha256_hex CHECK (request_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT inbox_status_known CHECK (status IN ('PROCESSING', 'COMPLETED', 'FAILED')),
    CONSTRAINT inbox_outcome_matches_status CHECK (
        (status = 'PROCESSING' AND outcome_kind IS NULL)
        OR (status = 'COMPLETED' AND outcome_kind = 'SUCCESS')
        OR (status = 'FAILED' AND outcome_kind = 'REJECTED')),
    CONSTRAINT inbox_outcome_expires_before_key CHECK (outcome_expires_at <= expires_at)
);

-- Retention deletes expired keys in bounded batches through this index.
CREATE INDEX inbox_expires_at_idx ON inbox (expires_at);

-- Phase one of retention (dropping outcome bodies) only ever looks at rows that still have one.
CREATE INDEX inbox_outcome_expires_at_idx ON inbox (outcome_expires_at)
    WHERE outcome_pruned_at IS NULL;

COMMENT ON TABLE inbox IS 'Idempotency keys claimed in the same transaction as the effect they guard';
COMMENT ON COLUMN inbox.operation IS 'Consumer group or operation name: part of the scope';
COMMENT ON COLUMN inbox.request_hash IS 'SHA-256 (hex) of the canonical payload; same key with another hash is a conflict';
COMMENT ON COLUMN inbox.status IS 'PROCESSING until the outcome is recorded; COMPLETED (success) or FAILED (business rejection)';
COMMENT ON COLUMN inbox.outcome_body IS 'Small JSON replayed to duplicates; dropped at outcome_expires_at';
COMMENT ON COLUMN inbox.expires_at IS 'When the key row itself may be deleted';
