package dev.inboxoutbox.chaos.verify;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the report's figures are computed from, read after the run went quiet: when orders were
 * placed and settled (the orders table), what the relay published twice and what was dead-lettered
 * (Kafka). Read once, straight from PostgreSQL and Kafka, never through the run's network proxy.
 */
public final class RunEvidence {

  // created_at and updated_at are PostgreSQL's now() at the writing transaction's start, on the
  // same clock as the run's when the database runs on this machine.
  private static final String ORDER_TIMES =
      """
      SELECT placed_by,
             (extract(epoch FROM created_at) * 1000)::bigint AS placed_at,
             CASE WHEN status <> 'PLACED' THEN (extract(epoch FROM updated_at) * 1000)::bigint END
               AS settled_at
        FROM orders
      """;

  private static final String EVENT_ID_HEADER = "id";
  private static final String REASON_HEADER = "iox-dlt-reason";

  /** One order: when it was placed and settled, in epoch ms; settled is null while it is open. */
  public record OrderTimes(String placedBy, long placedAtEpochMillis, Long settledAtEpochMillis) {}

  private RunEvidence() {}

  public static List<OrderTimes> orderTimes(DataSource orders) throws SQLException {
    List<OrderTimes> times = new ArrayList<>();
    try (Connection connection = orders.getConnection();
        PreparedStatement statement = connection.prepareStatement(ORDER_TIMES);
        ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        long settled = rows.getLong("settled_at");
        times.add(
            new OrderTimes(
                rows.getString("placed_by"),
                rows.getLong("placed_at"),
                rows.wasNull() ? null : settled));
      }
    }
    return times;
  }

  /** Records on each relayed outbox topic beyond one per event id: the relay's re-sends. */
  public static Map<String, Long> relayResendsByTopic(String bootstrap) {
    Map<String, List<String>> eventIds = new TreeMap<>();
    RunFigures.OUTBOX_TOPIC_BY_OPERATION
        .values()
        .forEach(topic -> eventIds.put(topic, new ArrayList<>()));
    for (ConsumerRecord<String, byte[]> record :
        Verifier.readAll(bootstrap, RunFigures.OUTBOX_TOPIC_BY_OPERATION.values())) {
      String id = header(record, EVENT_ID_HEADER);
      if (id != null) {
        eventIds.get(record.topic()).add(id);
      }
    }
    Map<String, Long> resends = new TreeMap<>();
    eventIds.forEach(
        (topic, ids) -> resends.put(topic, (long) ids.size() - new HashSet<>(ids).size()));
    return resends;
  }

  /** Dead letters on every {@code *.DLT} topic, by the reason header the consumer wrote. */
  public static Map<String, Long> deadLettersByReason(String bootstrap) {
    Map<String, Long> byReason = new TreeMap<>();
    for (ConsumerRecord<String, byte[]> record :
        Verifier.readAll(bootstrap, deadLetterTopics(bootstrap))) {
      String reason = header(record, REASON_HEADER);
      byReason.merge(reason == null ? "(no reason header)" : reason, 1L, Long::sum);
    }
    Map<String, Long> withTotal = new LinkedHashMap<>();
    withTotal.put("total", byReason.values().stream().mapToLong(Long::longValue).sum());
    withTotal.putAll(byReason);
    return withTotal;
  }

  private static List<String> deadLetterTopics(String bootstrap) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", bootstrap, "group.id", "iox-report-" + UUID.randomUUID()),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      return consumer.listTopics(Duration.ofSeconds(10)).keySet().stream()
          .filter(topic -> topic.endsWith(".DLT"))
          .sorted()
          .toList();
    }
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
