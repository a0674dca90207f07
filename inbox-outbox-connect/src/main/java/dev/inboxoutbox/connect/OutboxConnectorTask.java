package dev.inboxoutbox.connect;

import io.debezium.connector.postgresql.PostgresConnectorTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's PostgreSQL task with each record's source offset made unambiguous before its host
 * (Kafka Connect, Debezium Server, the embedded engine) stores it. The host stores the offset of
 * every record it acknowledged, heartbeats and records a transform drops included, and the task
 * confirms the replication slot up to the stored offset: both move together.
 */
public class OutboxConnectorTask extends PostgresConnectorTask {

  @Override
  public List<SourceRecord> doPoll() throws InterruptedException {
    List<SourceRecord> polled = super.doPoll();
    if (polled == null || polled.isEmpty()) {
      return polled;
    }
    List<SourceRecord> records = new ArrayList<>(polled.size());
    for (SourceRecord record : polled) {
      records.add(
          ResumePosition.unambiguous(record.sourceOffset())
              .map(offset -> withOffset(record, offset))
              .orElse(record));
    }
    return records;
  }

  @Override
  public String version() {
    return DebeziumVersion.connectorVersion();
  }

  private static SourceRecord withOffset(SourceRecord record, Map<String, Object> offset) {
    return new SourceRecord(
        record.sourcePartition(),
        offset,
        record.topic(),
        record.kafkaPartition(),
        record.keySchema(),
        record.key(),
        record.valueSchema(),
        record.value(),
        record.timestamp(),
        record.headers());
  }
}
