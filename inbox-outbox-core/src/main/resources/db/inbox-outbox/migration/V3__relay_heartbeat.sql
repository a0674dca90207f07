-- The relay's heartbeat table. WAL is shared by every database of a server, but a replication slot
-- decodes only its own database, and from PostgreSQL 15 on pgoutput sends nothing, not even BEGIN
-- and COMMIT, for a transaction that touched no published table. With the outbox quiet the relay
-- then receives nothing it could confirm the slot to, and the slot holds all WAL written meanwhile
-- by other databases and tables. Every heartbeat interval the relay inserts a row here (and
-- deletes its older ones); the insert is published, reaches the relay as a commit, and the slot is
-- confirmed past it. The relay's connector captures only the outbox table, so these rows never
-- become events.
CREATE TABLE iox_relay_heartbeat (
    slot_name text        NOT NULL,
    beat_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT iox_relay_heartbeat_pkey PRIMARY KEY (slot_name, beat_at)
);

COMMENT ON TABLE iox_relay_heartbeat IS
    'Written by the inbox-outbox relay every heartbeat interval so that its replication slot advances while the outbox is quiet.';

-- The publication publishes inserts only, so the heartbeat's deletes never reach the stream.
-- Adding a table needs ownership of the publication and of the table; where the migrating role
-- cannot, the owner adds it with the same statement.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication_tables
                   WHERE pubname = 'iox_outbox'
                     AND schemaname = current_schema()
                     AND tablename = 'iox_relay_heartbeat') THEN
        ALTER PUBLICATION iox_outbox ADD TABLE iox_relay_heartbeat;
    END IF;
EXCEPTION WHEN insufficient_privilege OR undefined_object THEN
    RAISE WARNING 'inbox-outbox: cannot add iox_relay_heartbeat to publication iox_outbox (%); as its owner run: '
        'ALTER PUBLICATION iox_outbox ADD TABLE iox_relay_heartbeat', SQLERRM;
END
$$;
