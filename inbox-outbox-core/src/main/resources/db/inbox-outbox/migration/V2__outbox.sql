-- The outbox: side effects leave the database only as rows here, written in the same transaction
-- as the state change that caused them. Column names are the Debezium Outbox Event Router defaults
-- (id, aggregatetype, aggregateid, type, payload), so the router needs no field mapping.
CREATE TABLE outbox (
    id             uuid        NOT NULL,
    aggregatetype  text        NOT NULL,
    aggregateid    text        NOT NULL,
    type           text        NOT NULL,
    payload        jsonb,
    traceparent    text,
    correlation_id text,
    causation_id   text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    published_at   timestamptz,
    CONSTRAINT outbox_pkey PRIMARY KEY (id),
    CONSTRAINT outbox_aggregatetype_not_blank CHECK (btrim(aggregatetype) <> ''),
    CONSTRAINT outbox_aggregateid_not_blank CHECK (btrim(aggregateid) <> ''),
    CONSTRAINT outbox_type_not_blank CHECK (btrim(type) <> '')
);

COMMENT ON TABLE outbox IS
    'Events to publish, appended in the business transaction; relayed to Kafka by Debezium (inbox-outbox relay).';
COMMENT ON COLUMN outbox.id IS
    'Event id; the relay sends it as the "id" and "Idempotency-Key" headers, the next consumer''s key.';
COMMENT ON COLUMN outbox.published_at IS
    'Set by the relay once Kafka acknowledged the event (kept rows only); NULL = not yet published.';

-- Retention deletes kept rows oldest first in bounded batches.
CREATE INDEX outbox_created_at_idx ON outbox (created_at);

-- Relay lag (the oldest unpublished row) must not scan the published history.
CREATE INDEX outbox_unpublished_idx ON outbox (created_at) WHERE published_at IS NULL;

-- Debezium's JDBC offset store; created here so the relay's role needs no CREATE privilege.
-- The layout is the one debezium-storage-jdbc expects.
CREATE TABLE iox_relay_offsets (
    id                varchar(36)   NOT NULL,
    offset_key        varchar(1255),
    offset_val        varchar(1255),
    record_insert_ts  timestamp     NOT NULL,
    record_insert_seq integer       NOT NULL,
    CONSTRAINT iox_relay_offsets_pkey PRIMARY KEY (id)
);

-- The publication carries inserts into the outbox only: a delete right after the insert (the
-- delete-after-publish policy) and the relay's published_at updates never reach the stream.
-- Creating it needs ownership of the table; where the migrating role cannot, a DBA creates it up
-- front with the same statement and the relay never needs that privilege.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'iox_outbox') THEN
        CREATE PUBLICATION iox_outbox FOR TABLE outbox WITH (publish = 'insert');
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'inbox-outbox: cannot create publication iox_outbox (%); create it as the table owner: '
        'CREATE PUBLICATION iox_outbox FOR TABLE outbox WITH (publish = ''insert'')', SQLERRM;
END
$$;
