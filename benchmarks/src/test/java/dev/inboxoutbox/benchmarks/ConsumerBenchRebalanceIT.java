package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.benchmarks.ConsumerBench.Disturbance;
import dev.inboxoutbox.benchmarks.ConsumerBench.Shape;
import dev.inboxoutbox.benchmarks.ConsumerBench.Topic;
import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A measured inbox run of the 3-partition shape in which the group rebalances with batches whose
 * transaction committed but whose offsets did not: the partitions' next owner reads them again and
 * the inbox absorbs them. The run must end only once every record is done, with one effect per
 * distinct key; and whatever the run's end, no key whose record the group committed may lack its
 * effect (that would be the consumer losing it, not the bench stopping early).
 */
class ConsumerBenchRebalanceIT {

  private static final int MESSAGES = 10_000;
  private static final int LEAVING_MEMBERS = 2;
  private static final int BATCHES_BEFORE_LEAVING = 3;

  @Test
  void aRunWhoseBatchesAreReadAgainAfterARebalanceEndsWithEveryKeyApplied() throws Exception {
    DevStack stack = DevStack.shared();
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      String bootstrap = stack.kafka().bootstrapServers();
      ConsumerBench bench =
          new ConsumerBench(db, bootstrap, MESSAGES, 1, new BenchFigures(), System.out);
      bench.createTables();
      Topic topic = bench.topic(3);
      MembersLeaving leaving = new MembersLeaving();

      RuntimeException runFailure = null;
      try {
        bench.inbox(new Shape(3, false), topic, "run with members leaving", leaving);
      } catch (IllegalStateException e) {
        runFailure = e;
      }

      assertThat(leaving.left.get())
          .as("members that left the group with a batch whose offsets were not committed")
          .isEqualTo(LEAVING_MEMBERS);
      String run = onlyRun(db);
      assertThat(keysCommittedWithoutEffect(db, bootstrap, topic, run))
          .as("keys whose record the group committed without the effect being applied")
          .isEmpty();
      assertThat(runFailure)
          .as("the run ends after every record is done, with one effect per distinct key")
          .isNull();
      assertThat(count(db, "SELECT count(DISTINCT key) FROM effects WHERE run = '" + run + "'"))
          .isEqualTo(topic.distinct());
    }
  }

  /**
   * The first {@value #LEAVING_MEMBERS} members to commit their {@value #BATCHES_BEFORE_LEAVING}rd
   * batch leave the group from their own thread, between the database commit and the offset commit,
   * as a member does whose commit a rebalance refuses. By throwing: {@link
   * IdempotentConsumer#close()} there would not do, its consumer still sends the offset commit
   * before it notices the wake-up.
   */
  private static final class MembersLeaving implements Disturbance {
    private final Map<IdempotentConsumer, AtomicInteger> batches = new ConcurrentHashMap<>();
    private final AtomicInteger left = new AtomicInteger();

    @Override
    public void batchCommitted(
        IdempotentConsumer consumer, List<ConsumerRecord<String, byte[]>> records) {
      int done = batches.computeIfAbsent(consumer, c -> new AtomicInteger()).incrementAndGet();
      if (done == BATCHES_BEFORE_LEAVING
          && left.getAndUpdate(n -> Math.min(n + 1, LEAVING_MEMBERS)) < LEAVING_MEMBERS) {
        // The loop's thread ends here, its Kafka consumer leaving the group without the batch's
        // offset commit: what a crash does, or an offset commit a rebalance refuses.
        throw new IllegalStateException("injected: a member leaves before its offset commit");
      }
    }
  }

  private static String onlyRun(Database db) throws Exception {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT DISTINCT run FROM effects")) {
      assertThat(rows.next()).as("a run applied effects").isTrue();
      String run = rows.getString(1);
      assertThat(rows.next()).as("one run in this database").isFalse();
      return run;
    }
  }

  /** Keys with no effect of which some record lies below its partition's committed offset. */
  private static Set<String> keysCommittedWithoutEffect(
      Database db, String bootstrap, Topic topic, String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    }
    Set<String> applied = new HashSet<>();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT key FROM effects WHERE run = '" + group + "'")) {
      while (rows.next()) {
        applied.add(rows.getString(1));
      }
    }
    Set<String> lost = new HashSet<>();
    for (ConsumerRecord<String, byte[]> record : allRecords(bootstrap, topic)) {
      OffsetAndMetadata next =
          committed.get(new TopicPartition(record.topic(), record.partition()));
      String key =
          new String(
              record.headers().lastHeader("Idempotency-Key").value(), StandardCharsets.UTF_8);
      if (next != null && record.offset() < next.offset() && !applied.contains(key)) {
        lost.add(key);
      }
    }
    return lost;
  }

  private static List<ConsumerRecord<String, byte[]>> allRecords(String bootstrap, Topic topic) {
    List<TopicPartition> partitions =
        IntStream.range(0, topic.partitions())
            .mapToObj(p -> new TopicPartition(topic.name(), p))
            .toList();
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> reader =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", bootstrap),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = reader.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (partitions.stream().anyMatch(p -> reader.position(p) < end.get(p))) {
        assertThat(System.nanoTime())
            .as("the topic read back within a minute")
            .isLessThan(deadline);
        reader.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertThat(records).hasSize(MESSAGES);
    return records;
  }

  private static long count(Database db, String sql) throws Exception {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
