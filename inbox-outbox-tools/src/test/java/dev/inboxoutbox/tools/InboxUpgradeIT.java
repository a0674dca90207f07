package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A filled inbox of schema v1 moves to v2 while consumers of the previous version and of this one
 * claim overlapping keys, redelivered at random, each claim in the transaction of its effect. No
 * key may have two effects and no claim may lack its effect, in any phase of the upgrade.
 */
class InboxUpgradeIT {

  private static final Scope SCOPE = Scope.of("orders");
  private static final int KEYS = 30_000;
  private static final int BATCH = 20;

  /** What an instance of the previous version runs: schema v1's claim, the key's four columns. */
  private static final String PREVIOUS_VERSION_CLAIM =
      """
      WITH offered AS (
          SELECT * FROM unnest(?::text[], ?::text[]) AS o(idempotency_key, request_hash)
      ),
      claimed AS (
          INSERT INTO inbox (tenant, principal, operation, idempotency_key, request_hash, status,
                             outcome_kind, completed_at, outcome_expires_at, expires_at)
          SELECT '', '', 'orders', idempotency_key, request_hash, 'COMPLETED', 'SUCCESS', now(),
                 now() + interval '1 day', now() + interval '7 days'
          FROM offered
          ORDER BY idempotency_key
          ON CONFLICT (tenant, principal, operation, idempotency_key) DO NOTHING
          RETURNING idempotency_key
      )
      SELECT idempotency_key FROM claimed
      """;

  private static final String EFFECT =
      "INSERT INTO effects (idempotency_key, applied_by) VALUES (?, ?)";

  private Database database;
  private final AtomicBoolean previousVersionRuns = new AtomicBoolean(true);
  private final AtomicBoolean thisVersionRuns = new AtomicBoolean(true);
  private final AtomicInteger batchesOfThisVersion = new AtomicInteger();
  private final AtomicInteger refusedBeforePrepare = new AtomicInteger();
  private final List<Throwable> unexpected = new ArrayList<>();

  @BeforeEach
  void schemaV1WithStoredKeys() throws SQLException {
    database = DevStack.shared().postgres().createDatabase();
    Flyway.configure()
        .dataSource(database.dataSource())
        .locations(InboxOutboxSchema.LOCATION)
        .table(InboxOutboxSchema.HISTORY_TABLE)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .target("3")
        .load()
        .migrate();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TABLE effects (idempotency_key text NOT NULL, applied_by text NOT NULL)");
      // Keys of earlier traffic, so that the digest has pages of rows to fill.
      statement.execute(
          """
          INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                             completed_at, outcome_expires_at, expires_at)
          SELECT 'orders', 'earlier-' || i, repeat('a', 64), 'COMPLETED', 'SUCCESS', now(),
                 now() + interval '1 day', now() + interval '7 days'
          FROM generate_series(1, 20000) AS i
          """);
    }
  }

  @AfterEach
  void tearDown() {
    previousVersionRuns.set(false);
    thisVersionRuns.set(false);
    database.close();
  }

  @Test
  void keysClaimedByBothVersionsDuringTheUpgradeHaveOneEffectEach() throws Exception {
    Inbox inbox = Inbox.builder().build();
    List<Thread> previous = List.of(previousVersion("previous-1"), previousVersion("previous-2"));
    previous.forEach(Thread::start);
    await("the previous version applying keys")
        .atMost(Duration.ofSeconds(30))
        .until(() -> effects("previous-%") > 100);

    InboxOutboxSchema.migrate(database.dataSource());
    List<Thread> current = List.of(thisVersion(inbox, "this-1"), thisVersion(inbox, "this-2"));
    current.forEach(Thread::start);
    await("this version refusing to claim before the digest is indexed")
        .atMost(Duration.ofSeconds(30))
        .until(() -> refusedBeforePrepare.get() > 0);
    assertThat(effects("this-%")).isZero();

    ByteArrayOutputStream log = new ByteArrayOutputStream();
    assertThat(new InboxUpgrade(database.dataSource(), new PrintStream(log, true)).prepare())
        .isTrue();
    int beforeBoth = batchesOfThisVersion.get();
    await("both versions claiming side by side")
        .atMost(Duration.ofSeconds(30))
        .until(() -> batchesOfThisVersion.get() > beforeBoth + 50);

    previousVersionRuns.set(false);
    for (Thread thread : previous) {
      thread.join();
    }
    new InboxUpgrade(database.dataSource(), new PrintStream(log, true)).finish();
    int afterFinish = batchesOfThisVersion.get();
    await("this version claiming on schema v2")
        .atMost(Duration.ofSeconds(30))
        .until(() -> batchesOfThisVersion.get() > afterFinish + 50);
    thisVersionRuns.set(false);
    for (Thread thread : current) {
      thread.join();
    }

    synchronized (unexpected) {
      assertThat(unexpected).isEmpty();
    }
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("key digests filled: 2")
        .contains("finished: the inbox is on schema v2");
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT idempotency_key FROM effects"
                    + " GROUP BY idempotency_key HAVING count(*) > 1) twice"))
        .as("keys applied twice")
        .isZero();
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key LIKE 'k-%'"))
        .as("every claimed key has its effect, every effect its claim")
        .isEqualTo(count("SELECT count(DISTINCT idempotency_key) FROM effects"));
    assertThat(effects("previous-%")).isPositive();
    assertThat(effects("this-%")).isPositive();
    try (Connection connection = database.connect()) {
      assertThat(InboxUpgrade.primaryKeyOnDigest(connection)).isTrue();
      connection.setAutoCommit(false);
      assertThatThrownBy(() -> previousVersionClaim(connection, List.of("k-1")))
          .as("an instance of the previous version left running fails instead of claiming")
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("ON CONFLICT");
    }
  }

  @Test
  void anEmptyInboxIsOnSchemaV2AsSoonAsItIsMigrated() throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("TRUNCATE inbox");
    }
    InboxOutboxSchema.migrate(database.dataSource());
    try (Connection connection = database.connect()) {
      assertThat(InboxUpgrade.primaryKeyOnDigest(connection)).isTrue();
    }
  }

  private Thread previousVersion(String name) {
    return new Thread(
        () -> {
          while (previousVersionRuns.get()) {
            try (Connection connection = database.connect()) {
              connection.setAutoCommit(false);
              while (previousVersionRuns.get()) {
                List<String> keys = randomKeys();
                try {
                  for (String key : previousVersionClaim(connection, keys)) {
                    applyEffect(connection, key, name);
                  }
                  connection.commit();
                } catch (SQLException e) {
                  connection.rollback();
                  expectDuringUpgrade(e);
                }
              }
            } catch (SQLException e) {
              record(e);
            }
          }
        },
        name);
  }

  private Thread thisVersion(Inbox inbox, String name) {
    return new Thread(
        () -> {
          while (thisVersionRuns.get()) {
            try (Connection connection = database.connect()) {
              connection.setAutoCommit(false);
              while (thisVersionRuns.get()) {
                List<ClaimRequest> requests =
                    randomKeys().stream().map(InboxUpgradeIT::request).toList();
                try {
                  for (ClaimResult result : inbox.claimAllPresumingSuccess(connection, requests)) {
                    if (result instanceof ClaimResult.New claimed) {
                      applyEffect(connection, claimed.request().key().value(), name);
                    } else if (result instanceof ClaimResult.Conflict conflict) {
                      throw new AssertionError("same payload taken for a conflict: " + conflict);
                    }
                  }
                  connection.commit();
                  batchesOfThisVersion.incrementAndGet();
                } catch (IllegalStateException | AssertionError e) {
                  throw e;
                } catch (RuntimeException e) {
                  // The inbox's own failure: the claim's SQL error, or the refusal to claim.
                  connection.rollback();
                  if (e.getMessage().contains("not indexed yet")) {
                    refusedBeforePrepare.incrementAndGet();
                    Thread.sleep(20);
                  } else if (e.getCause() instanceof SQLException cause) {
                    expectDuringUpgrade(cause);
                  } else {
                    throw e;
                  }
                } catch (SQLException e) {
                  connection.rollback();
                  expectDuringUpgrade(e);
                }
              }
            } catch (SQLException | RuntimeException | AssertionError e) {
              record(e);
            } catch (InterruptedException e) {
              return;
            }
          }
        },
        name);
  }

  private static List<String> previousVersionClaim(Connection connection, List<String> keys)
      throws SQLException {
    String[] hashes = keys.stream().map(key -> request(key).requestHash()).toArray(String[]::new);
    try (PreparedStatement statement = connection.prepareStatement(PREVIOUS_VERSION_CLAIM)) {
      statement.setArray(1, connection.createArrayOf("text", keys.toArray()));
      statement.setArray(2, connection.createArrayOf("text", hashes));
      List<String> claimed = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          claimed.add(result.getString(1));
        }
      }
      return claimed;
    }
  }

  private static ClaimRequest request(String key) {
    return ClaimRequest.ofBytes(
        SCOPE, IdempotencyKey.of(key), ("{\"order\":\"" + key + "\"}").getBytes());
  }

  private static List<String> randomKeys() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<String> keys = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      String key = "k-" + random.nextInt(KEYS);
      if (!keys.contains(key)) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static void applyEffect(Connection connection, String key, String by)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(EFFECT)) {
      statement.setString(1, key);
      statement.setString(2, by);
      statement.executeUpdate();
    }
  }

  /**
   * Writers that insert the same keys in different orders (the previous version by key, this one by
   * digest) can deadlock while both run; PostgreSQL aborts one, which rolls back and tries again,
   * as a consumer's batch does.
   */
  private void expectDuringUpgrade(SQLException e) {
    if (!"40P01".equals(e.getSQLState())) {
      record(e);
    }
  }

  private void record(Throwable e) {
    synchronized (unexpected) {
      unexpected.add(e);
    }
  }

  private long effects(String appliedBy) throws SQLException {
    return count("SELECT count(*) FROM effects WHERE applied_by LIKE '" + appliedBy + "'");
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getLong(1);
    }
  }
}
