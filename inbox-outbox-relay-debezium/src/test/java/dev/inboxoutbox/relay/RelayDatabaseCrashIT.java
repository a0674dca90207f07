package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.PostgresServer;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL crashes (SIGKILL of every server process, then a start on the same data) while the
 * relay publishes a steady stream of events. Its own server: crashing the shared one would break
 * every other test class in the JVM.
 */
class RelayDatabaseCrashIT {

  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final int CRASHES = 3;

  @Test
  void everyEventPublishedAroundDatabaseCrashesIsStampedAndNoneIsLost() throws Exception {
    DevStackSettings settings =
        DevStackSettings.fromEnvironment()
            .withKafkaBootstrap(DevStack.shared().kafka().bootstrapServers());
    try (DevStack stack = DevStack.start(settings);
        Database database = stack.postgres().createDatabase()) {
      assumeTrue(stack.postgres().processes().isPresent(), "needs a server this test may crash");
      PostgresServer.Processes server = stack.postgres().processes().orElseThrow();
      InboxOutboxSchema.migrate(database.dataSource());
      database.commitsSurviveServerCrashes();
      String topicPrefix = "t" + UUID.randomUUID().toString().substring(0, 8);
      // Two instances, as two services run them: after a crash either may lead.
      try (OutboxRelay relay =
              OutboxRelay.builder(RelayOnAFreshDatabase.settings(database, topicPrefix).build())
                  .build()
                  .start();
          OutboxRelay standby =
              OutboxRelay.builder(RelayOnAFreshDatabase.settings(database, topicPrefix).build())
                  .build()
                  .start()) {
        await("relay running")
            .atMost(PATIENCE)
            .until(
                () -> relay.state() == RelayState.RUNNING || standby.state() == RelayState.RUNNING);
        Set<String> committed = ConcurrentHashMap.newKeySet();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
          Future<?> writes = writer.submit(() -> writeUntilStopped(database, writing, committed));
          for (int crash = 0; crash < CRASHES; crash++) {
            Thread.sleep(3_000);
            server.kill();
            Thread.sleep(1_500);
            server.start();
          }
          Thread.sleep(5_000);
          writing.set(false);
          writes.get();
        } finally {
          writer.shutdownNow();
        }
        assertThat(committed).hasSizeGreaterThan(100);

        try (TopicReader reader = new TopicReader(topicPrefix + ".order")) {
          List<ConsumerRecord<String, byte[]>> records =
              reader.readUntil(
                  seen -> RelayOnAFreshDatabase.distinctIds(seen).containsAll(committed), PATIENCE);
          assertThat(RelayOnAFreshDatabase.distinctIds(records)).containsAll(committed);
        }
        try {
          await("every published row stamped")
              .atMost(PATIENCE)
              .until(() -> unpublished(database).isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          throw new AssertionError(
              "rows on the topic but never stamped published: "
                  + unpublished(database)
                  + "; relays "
                  + relay.status()
                  + ", "
                  + standby.status(),
              e);
        }
      }
    }
  }

  /** Appends one event per transaction; a commit that failed or may have failed is not counted. */
  private static Void writeUntilStopped(
      Database database, AtomicBoolean writing, Set<String> committed) {
    Outbox outbox = Outbox.builder().build();
    int sequence = 0;
    while (writing.get()) {
      try (Connection connection = database.connect()) {
        connection.setAutoCommit(false);
        while (writing.get()) {
          OutboxEvent event =
              OutboxEvent.of("order", "o-" + (sequence % 10), "Step", "{\"seq\":" + sequence + "}");
          sequence++;
          outbox.append(connection, event);
          connection.commit();
          committed.add(event.id().toString());
          Thread.sleep(5);
        }
      } catch (SQLException databaseDown) {
        pause();
      } catch (RuntimeException appendFailed) {
        if (!(appendFailed.getCause() instanceof SQLException)) {
          throw appendFailed;
        }
        pause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static List<String> unpublished(Database database) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT id, created_at FROM outbox WHERE published_at IS NULL ORDER BY created_at")) {
      List<String> ids = new ArrayList<>();
      while (rows.next()) {
        ids.add(rows.getString(1) + " created " + rows.getString(2));
      }
      return ids;
    }
  }
}
