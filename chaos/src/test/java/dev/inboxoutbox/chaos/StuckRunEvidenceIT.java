package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.chaos.verify.KafkaLag;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run that does not go quiet leaves behind tells a consumer blocked on something from a
 * partition nobody consumes: a JVM's threads, the PostgreSQL session a blocked one waits for, and
 * the member holding each partition a group is behind on.
 */
class StuckRunEvidenceIT {

  private static final String TOPIC = "lagging";
  private static final String GROUP = "laggards";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static DevStack stack;

  @BeforeAll
  static void startStack() {
    stack = DevStack.start(DevStackSettings.fromEnvironment());
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void aJvmPrintsItsThreadsToItsOutput(@TempDir Path directory) throws Exception {
    Path program = directory.resolve("Waiting.java");
    Files.writeString(
        program,
        """
        public class Waiting {
          public static void main(String[] args) throws Exception {
            System.out.println("waiting");
            Thread.sleep(60_000);
          }
        }
        """);
    Path output = directory.resolve("waiting.log");
    Process jvm =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                program.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      await("the program runs")
          .atMost(PATIENCE)
          .until(() -> Files.readString(output).contains("waiting"));

      StuckRunEvidence.dumpThreads(jvm.toHandle());

      await("its threads in its output")
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(Files.readString(output))
                      .contains("Full thread dump")
                      .contains("at Waiting.main"));
    } finally {
      jvm.destroyForcibly().waitFor();
    }
  }

  @Test
  void aSessionWaitingForALockNamesTheSessionHoldingIt() throws Exception {
    try (Database database = stack.postgres().createDatabase();
        Connection holder = database.connect();
        Statement holding = holder.createStatement()) {
      holding.execute("CREATE TABLE claims (key text PRIMARY KEY)");
      holder.setAutoCommit(false);
      holding.execute("INSERT INTO claims VALUES ('k')");
      long holderPid = pid(holder);
      CompletableFuture<Void> waiter =
          CompletableFuture.runAsync(
              () -> {
                try (Connection second = database.connect();
                    Statement claiming = second.createStatement()) {
                  claiming.execute("INSERT INTO claims VALUES ('k') ON CONFLICT DO NOTHING");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try {
        await("the second claim waits")
            .atMost(PATIENCE)
            .until(
                () ->
                    StuckRunEvidence.sessions(database.dataSource()).stream()
                        .anyMatch(line -> line.contains("wait_event_type=Lock")));

        List<String> sessions = StuckRunEvidence.sessions(database.dataSource());
        assertThat(sessions)
            .anySatisfy(
                line ->
                    assertThat(line)
                        .contains("wait_event_type=Lock")
                        .contains("blocked_by={" + holderPid + "}")
                        .contains("INSERT INTO claims"));
        assertThat(sessions)
            .anySatisfy(
                line ->
                    assertThat(line)
                        .startsWith("pid=" + holderPid + " ")
                        .contains("state=idle in transaction"));
      } finally {
        holder.rollback();
        waiter.get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aPartitionBehindNamesTheMemberHoldingItThenNoneOnceItLeaves() throws Exception {
    String bootstrap = stack.kafka().bootstrapServers();
    try (KafkaLag lag = new KafkaLag(bootstrap)) {
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        admin
            .createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)))
            .all()
            .get(20, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              Map.of("bootstrap.servers", bootstrap),
              new StringSerializer(),
              new StringSerializer())) {
        for (int i = 0; i < 3; i++) {
          producer.send(new ProducerRecord<>(TOPIC, 0, null, "zero-" + i));
        }
        producer.send(new ProducerRecord<>(TOPIC, 1, null, "one")).get(20, TimeUnit.SECONDS);
      }
      TopicPartition zero = new TopicPartition(TOPIC, 0);
      TopicPartition one = new TopicPartition(TOPIC, 1);
      try (KafkaConsumer<String, String> member =
          new KafkaConsumer<>(
              Map.of(
                  "bootstrap.servers",
                  bootstrap,
                  "group.id",
                  GROUP,
                  "client.id",
                  "the-holder",
                  "enable.auto.commit",
                  "false"),
              new StringDeserializer(),
              new StringDeserializer())) {
        member.subscribe(List.of(TOPIC));
        await("both partitions assigned")
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  member.poll(Duration.ofMillis(100));
                  return member.assignment().size() == 2;
                });
        // Caught up on partition 1, one of three records done on partition 0.
        member.commitSync(Map.of(zero, new OffsetAndMetadata(1), one, new OffsetAndMetadata(1)));

        assertThat(lag.lag(GROUP, TOPIC)).isEqualTo(2);
        assertThat(lag.behind(GROUP, TOPIC))
            .singleElement()
            .satisfies(
                behind -> {
                  assertThat(behind.partition()).isEqualTo(zero);
                  assertThat(behind.records()).isEqualTo(2);
                  assertThat(behind.heldBy()).hasValueSatisfying(m -> m.startsWith("the-holder"));
                  assertThat(behind.toString())
                      .startsWith("lagging-0 2 behind, held by the-holder");
                });
      }

      assertThat(lag.behind(GROUP, TOPIC))
          .singleElement()
          .satisfies(
              behind -> {
                assertThat(behind.heldBy()).isEqualTo(Optional.empty());
                assertThat(behind.toString())
                    .isEqualTo("lagging-0 2 behind, assigned to no member");
              });
    }
  }

  private static long pid(Connection connection) throws Exception {
    try (Statement statement = connection.createStatement();
        var row = statement.executeQuery("SELECT pg_backend_pid()")) {
      row.next();
      return row.getLong(1);
    }
  }
}
