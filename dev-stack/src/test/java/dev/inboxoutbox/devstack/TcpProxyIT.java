package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The network faults of a chaos run against real PostgreSQL: a JDBC client through the proxy sees
 * each fault (slow round trips, a reset connection, a query that hangs) and works again once the
 * fault is over.
 */
class TcpProxyIT {

  private static DevStack stack;
  private static Database database;
  private TcpProxy proxy;

  @BeforeAll
  static void startStack() {
    stack = DevStack.shared();
    database = stack.postgres().createDatabase();
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @BeforeEach
  void startProxy() throws Exception {
    proxy = new TcpProxy("postgres", TcpProxy.jdbcUpstream(database.jdbcUrl()));
  }

  @AfterEach
  void stopProxy() throws Exception {
    proxy.close();
  }

  @Test
  void aQueryThroughTheProxyReachesTheDatabase() throws Exception {
    try (Connection connection = connectThroughProxy()) {
      assertThat(one(connection)).isEqualTo(1);
    }
    assertThat(proxy.jdbcUrlThrough(database.jdbcUrl()))
        .contains("//" + proxy.hostAndPort() + "/" + database.name());
  }

  @Test
  void addedLatencyDelaysEachRoundTripByAtLeastTwiceTheLatencyAndIsGoneWhenRemoved()
      throws Exception {
    try (Connection connection = connectThroughProxy()) {
      proxy.latency(Duration.ofMillis(300));
      long started = System.nanoTime();
      assertThat(one(connection)).isEqualTo(1);
      // Request and answer each wait once: the injected delay is a lower bound, not a speed.
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(Duration.ofMillis(600));

      proxy.latency(Duration.ZERO);
      assertThat(one(connection)).isEqualTo(1);
    }
  }

  @Test
  void aResetBreaksTheOpenConnectionAndANewConnectionWorks() throws Exception {
    try (Connection connection = connectThroughProxy()) {
      assertThat(one(connection)).isEqualTo(1);

      assertThat(proxy.resetConnections()).isEqualTo(1);

      assertThatThrownBy(() -> one(connection))
          .isInstanceOf(SQLException.class)
          .satisfies(
              e ->
                  assertThat(((SQLException) e).getSQLState())
                      .as("connection failure class 08")
                      .startsWith("08"));
    }
    try (Connection fresh = connectThroughProxy()) {
      assertThat(one(fresh)).isEqualTo(1);
    }
  }

  @Test
  void aQueryIntoTheBlackHoleHangsUntilTheHoleClosesAndThenCompletes() throws Exception {
    try (Connection connection = connectThroughProxy()) {
      assertThat(one(connection)).isEqualTo(1);

      proxy.openBlackHole();
      CompletableFuture<Integer> query =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return one(connection);
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThatThrownBy(() -> query.get(1500, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);

      proxy.closeBlackHole();
      assertThat(query.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }
  }

  @Test
  void aNewConnectionDuringTheBlackHoleIsHeldAndOpensAfterIt() throws Exception {
    proxy.openBlackHole();
    CompletableFuture<Integer> connectAndQuery =
        CompletableFuture.supplyAsync(
            () -> {
              try (Connection connection = connectThroughProxy()) {
                return one(connection);
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThatThrownBy(() -> connectAndQuery.get(1500, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);

    proxy.closeBlackHole();
    assertThat(connectAndQuery.get(10, TimeUnit.SECONDS)).isEqualTo(1);
  }

  private Connection connectThroughProxy() throws SQLException {
    return DriverManager.getConnection(
        proxy.jdbcUrlThrough(database.jdbcUrl()), database.username(), database.password());
  }

  private static int one(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT 1")) {
      row.next();
      return row.getInt(1);
    }
  }
}
