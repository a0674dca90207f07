package dev.inboxoutbox.spring.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.FreePorts;
import dev.inboxoutbox.devstack.TcpProxy;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.mock.env.MockEnvironment;

/**
 * The starter's migration against a real PostgreSQL behind a TCP proxy that first leads nowhere, as
 * a database restarting while the service starts: with {@code wait-for-database} the start waits
 * and migrates once the database answers; without it, or when waiting cannot help, it fails.
 */
class InboxOutboxSchemaInitializerIT {

  private Database database;
  private TcpProxy proxy;

  @BeforeEach
  void databaseNotYetReachable() throws Exception {
    database = DevStack.shared().postgres().createDatabase();
    proxy =
        new TcpProxy(
            "postgres", new InetSocketAddress("127.0.0.1", FreePorts.belowEphemeralRange()));
  }

  @AfterEach
  void close() throws Exception {
    proxy.close();
    database.close();
  }

  @Test
  void waitsForTheDatabaseThenMigrates() throws Exception {
    InboxOutboxSchemaInitializer initializer =
        new InboxOutboxSchemaInitializer(throughProxy(database.jdbcUrl()), Duration.ofSeconds(60));

    migratesOnceTheDatabaseIsReachable(initializer::afterPropertiesSet);
    assertThat(tableExists("inbox")).isTrue();
  }

  @Test
  void theApplicationsFlywayMigrationWaitsForTheDatabaseToo() throws Exception {
    MockEnvironment environment =
        new MockEnvironment().withProperty("inbox-outbox.schema.wait-for-database", "60s");
    FlywayMigrationStrategy strategy =
        new LockedFlywayMigrationAutoConfiguration().lockedFlywayMigration(environment);
    Flyway flyway =
        Flyway.configure()
            .dataSource(throughProxy(database.jdbcUrl()))
            .locations("classpath:db/locked-it")
            .load();

    migratesOnceTheDatabaseIsReachable(() -> strategy.migrate(flyway));
    assertThat(tableExists("things")).isTrue();
  }

  @Test
  void withoutAWaitAnUnreachableDatabaseFailsTheStart() {
    InboxOutboxSchemaInitializer initializer =
        new InboxOutboxSchemaInitializer(throughProxy(database.jdbcUrl()));

    assertThatThrownBy(initializer::afterPropertiesSet)
        .hasMessageContaining("schema migration lock")
        .matches(DatabaseWait::unreachable);
  }

  @Test
  void aFailureThatWaitingCannotCureFailsTheStartAtOnce() {
    proxy.redirect(TcpProxy.jdbcUpstream(database.jdbcUrl()));
    String missingDatabase = database.jdbcUrl().replace(database.name(), "no_such_database");
    InboxOutboxSchemaInitializer initializer =
        new InboxOutboxSchemaInitializer(throughProxy(missingDatabase), Duration.ofSeconds(60));

    long started = System.nanoTime();
    assertThatThrownBy(initializer::afterPropertiesSet)
        .hasMessageContaining("schema migration lock")
        .matches(failure -> !DatabaseWait.unreachable(failure));
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("no wait for a database that does not exist")
        .isLessThan(Duration.ofSeconds(10));
  }

  /**
   * Starts {@code migration}, checks it still waits 2 s later while the proxy leads nowhere, then
   * lets the proxy lead to the database and waits for the migration to end.
   */
  private void migratesOnceTheDatabaseIsReachable(Runnable migration) throws Exception {
    CompletableFuture<Void> start = CompletableFuture.runAsync(migration);
    Thread.sleep(2_000);
    assertThat(start).as("still waiting while the database cannot be reached").isNotDone();

    proxy.redirect(TcpProxy.jdbcUpstream(database.jdbcUrl()));

    start.get(60, TimeUnit.SECONDS);
  }

  private DataSource throughProxy(String jdbcUrl) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(proxy.jdbcUrlThrough(jdbcUrl));
    dataSource.setUser(database.username());
    dataSource.setPassword(database.password());
    return dataSource;
  }

  private boolean tableExists(String name) throws Exception {
    try (Connection connection = database.connect();
        ResultSet table = connection.getMetaData().getTables(null, null, name, null)) {
      return table.next();
    }
  }
}
