package dev.inboxoutbox.relay;

import dev.inboxoutbox.connect.OutboxConnector;
import java.util.Properties;

/** What the relay tells Debezium's engine: the connector, the slot, offsets, batching, routing. */
final class EngineConfiguration {

  private EngineConfiguration() {}

  /**
   * The engine's properties for a run; {@code slotExists} says whether the slot was there when the
   * run started.
   */
  static Properties of(RelaySettings settings, boolean slotExists) {
    DatabaseAddress address = settings.address();
    EngineTuning tuning = settings.tuning();
    Properties p = new Properties();
    p.setProperty("name", "iox-outbox-relay-" + settings.slotName());
    // Debezium's connector with resume positions a restart cannot mistake for a row of another
    // transaction (ADR 0001); the same connector Kafka Connect and Debezium Server run.
    p.setProperty("connector.class", OutboxConnector.class.getName());
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("database.hostname", address.host());
    p.setProperty("database.port", String.valueOf(address.port()));
    p.setProperty("database.user", address.user());
    p.setProperty("database.password", address.password());
    p.setProperty("database.dbname", address.database());
    p.setProperty("topic.prefix", "iox");
    p.setProperty("slot.name", settings.slotName());
    p.setProperty("publication.name", settings.publicationName());
    // The publication is created by the schema migration (or a DBA): the relay's role needs no
    // ownership of the outbox table.
    p.setProperty("publication.autocreate.mode", "disabled");
    // On a PostgreSQL 17+ primary the slot is created so that standbys keep a copy of it
    // (sync_replication_slots) and the relay continues on a promoted standby; older servers and
    // standbys get a plain slot (FailoverReadiness says what that costs).
    p.setProperty("slot.failover", "true");
    if (slotExists) {
      // The slot is confirmed only past what was published and stored, so a slot ahead of the
      // stored position is the truth: after a failover to an asynchronous standby the newest stored
      // offsets can be lost while the standby's copy of the slot, synced up to the WAL the standby
      // has, is ahead of them. Debezium would refuse that start ("no longer available"). A missing
      // slot keeps Debezium's check: a new slot over stored offsets would skip events silently.
      p.setProperty("offset.mismatch.strategy", "trust_slot");
    }
    p.setProperty("table.include.list", settings.outboxTable());
    // Only rows inserted from now on are events; the relay never re-reads the table.
    p.setProperty("snapshot.mode", "no_data");
    // Without this every record carries four __debezium.context.* headers nobody downstream reads.
    p.setProperty("extended.headers.enabled", "false");
    p.setProperty(
        "heartbeat.interval.ms", String.valueOf(settings.timing().heartbeatInterval().toMillis()));
    // Without a write of its own the slot could not move past WAL of other databases (or, from
    // PostgreSQL 15 on, other tables) while the outbox is quiet: see RelayHeartbeat.
    p.setProperty("heartbeat.action.query", new RelayHeartbeat(settings).actionQuery());
    p.setProperty("offset.storage", "io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore");
    p.setProperty("offset.storage.jdbc.connection.url", address.jdbcUrl());
    p.setProperty("offset.storage.jdbc.connection.user", address.user());
    // debezium-storage-jdbc insists on a password even where the server trusts the connection.
    p.setProperty(
        "offset.storage.jdbc.connection.password",
        address.password().isEmpty() ? "unused-with-trust-auth" : address.password());
    p.setProperty("offset.storage.jdbc.table.name", "iox_relay_offsets");
    p.setProperty(
        "offset.flush.interval.ms", String.valueOf(tuning.offsetFlushInterval().toMillis()));
    p.setProperty("poll.interval.ms", String.valueOf(tuning.pollInterval().toMillis()));
    p.setProperty("max.batch.size", String.valueOf(tuning.maxBatchSize()));
    p.setProperty("max.queue.size", String.valueOf(tuning.maxQueueSize()));
    p.setProperty("transforms", "outbox");
    p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    p.setProperty("transforms.outbox.route.topic.replacement", settings.topicReplacement());
    p.setProperty(
        "transforms.outbox.table.fields.additional.placement",
        "type:header:type,traceparent:header:traceparent,tracestate:header:tracestate,"
            + "correlation_id:header:correlation-id,causation_id:header:causation-id");
    return p;
  }
}
