package dev.inboxoutbox.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.connect.ConnectRest;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many databases relayed by one Kafka Connect group: two workers, three databases each with its
 * outbox and its connector. A worker killed under load hands its tasks to the other, and every
 * committed row reaches its topic.
 */
class ConnectScaleOutIT {

  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final int DATABASES = 3;

  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  @Test
  void aWorkerKilledUnderLoadHandsItsTasksToTheOtherAndNoCommittedRowIsLost() throws Exception {
    String group = "iox-scale-" + UUID.randomUUID().toString().substring(0, 8);
    List<ConnectWorker> workers = new ArrayList<>();
    for (String name : List.of("worker-1", "worker-2")) {
      ConnectWorker worker =
          RelayFiles.worker(name, group, Map.of(), RelayFiles.workerDirectory(group));
      workers.add(worker);
    }
    List<Database> databases = new ArrayList<>();
    for (int i = 0; i < DATABASES; i++) {
      Database database = MigratedDatabase.create();
      cleanup.add(database);
      databases.add(database);
    }
    // Closed before the databases: a database with an active slot cannot be dropped.
    workers.forEach(worker -> cleanup.add(worker.start()));

    ConnectRest rest = workers.get(0).rest();
    List<String> connectors = new ArrayList<>();
    for (int i = 0; i < DATABASES; i++) {
      String name = group + "-db" + i;
      Map<String, String> config =
          RelayFiles.connector(
              RelayFiles.environment(databases.get(i), "iox_" + name.replace('-', '_')));
      // Debezium names a connector's own topics and source partition after it: one per database.
      config.put("topic.prefix", name);
      rest.putConnector(name, config);
      connectors.add(name);
    }
    connectors.forEach(name -> rest.awaitRunning(name, PATIENCE));

    List<SteadyStream> streams = new ArrayList<>();
    for (int i = 0; i < DATABASES; i++) {
      SteadyStream stream =
          new SteadyStream(
              databases.get(i), "scale" + i + UUID.randomUUID().toString().substring(0, 6));
      cleanup.add(stream);
      streams.add(stream);
    }
    String[] topics = streams.stream().map(SteadyStream::topic).toArray(String[]::new);
    try (TopicReader reader = new TopicReader(topics)) {
      awaitPublished(reader, committedSoFar(streams));

      ConnectWorker victim = workerRunningATask(workers, rest, connectors);
      ConnectWorker survivor = workers.get(workers.indexOf(victim) == 0 ? 1 : 0);
      victim.kill();
      for (String name : connectors) {
        survivor.rest().awaitRunningOn(name, survivor.workerId(), PATIENCE);
      }

      Set<String> committed = new HashSet<>();
      for (SteadyStream stream : streams) {
        committed.addAll(stream.stop());
      }
      awaitPublished(reader, committed);
      assertThat(committed).hasSizeGreaterThan(DATABASES * 100);
    }
  }

  private static ConnectWorker workerRunningATask(
      List<ConnectWorker> workers, ConnectRest rest, List<String> connectors) {
    for (String name : connectors) {
      String workerId = rest.status(name).tasks().get(0).workerId();
      for (ConnectWorker worker : workers) {
        if (worker.workerId().equals(workerId)) {
          return worker;
        }
      }
    }
    throw new AssertionError("no task runs on a worker of the group");
  }

  private static Set<String> committedSoFar(List<SteadyStream> streams) {
    Set<String> committed = new HashSet<>();
    streams.forEach(stream -> committed.addAll(stream.committed()));
    return committed;
  }

  private static void awaitPublished(TopicReader reader, Set<String> ids) {
    reader.readUntil(seen -> OutboxConnectorIT.ids(seen).containsAll(ids), PATIENCE);
  }
}
