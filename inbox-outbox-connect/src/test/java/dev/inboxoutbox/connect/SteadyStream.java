package dev.inboxoutbox.connect;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Appends outbox events without pause, one to three per transaction over a few aggregates, while a
 * test breaks the relay; remembers the id of every event whose transaction committed.
 */
final class SteadyStream implements AutoCloseable {

  private final Database database;
  private final String aggregateType;
  private final Outbox outbox = Outbox.builder().build();
  private final Set<String> committed = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final ExecutorService writer = Executors.newSingleThreadExecutor();
  private final Future<?> writing;

  SteadyStream(Database database, String aggregateType) {
    this.database = database;
    this.aggregateType = aggregateType;
    this.writing = writer.submit(this::write);
  }

  String topic() {
    return "outbox.event." + aggregateType;
  }

  /** Ids of the events committed so far. */
  Set<String> committed() {
    return Set.copyOf(committed);
  }

  /** Stops writing and answers every committed event id; a failed write fails the test. */
  Set<String> stop() throws Exception {
    running.set(false);
    writing.get(30, TimeUnit.SECONDS);
    return committed();
  }

  @Override
  public void close() {
    running.set(false);
    writer.shutdownNow();
  }

  private Void write() throws SQLException, InterruptedException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      for (int transaction = 0; running.get(); transaction++) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i <= transaction % 3; i++) {
          events.add(
              OutboxEvent.of(
                  aggregateType,
                  "a-" + (transaction + i) % 7,
                  "Step",
                  "{\"transaction\": " + transaction + "}"));
        }
        outbox.appendAll(connection, events);
        connection.commit();
        events.forEach(event -> committed.add(event.id().toString()));
        Thread.sleep(10); // paces the load to about 70 transactions a second; nothing awaited
      }
    }
    return null;
  }
}
