package dev.inboxoutbox.connect;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For each test a fresh migrated database and a started worker of a group of its own, its
 * environment pointing the checked-in connector at that database ({@link RelayFiles#soleWorker});
 * both closed after the test, the worker first (a database with an active slot cannot be dropped).
 * Registered with {@code @RegisterExtension}.
 */
final class WorkerPerTest implements BeforeEachCallback, AfterEachCallback {

  /** How long a test waits on its worker: a connector running or stopped, records relayed. */
  static final Duration PATIENCE = Duration.ofSeconds(90);

  private Database database;
  private ConnectWorker worker;

  @Override
  public void beforeEach(ExtensionContext context) {
    database = MigratedDatabase.create();
    worker = RelayFiles.soleWorker(database).start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    worker.close();
    database.close();
  }

  Database database() {
    return database;
  }

  ConnectWorker worker() {
    return worker;
  }
}
