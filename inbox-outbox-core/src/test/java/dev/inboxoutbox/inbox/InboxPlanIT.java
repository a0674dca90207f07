package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The claim (both ways), lookup, completion and correction statements, exactly as {@link
 * InboxStatements} runs them, reach inbox rows only through the primary key, so their cost per key
 * does not grow with the inbox. A scan or a hash join over the inbox reads the whole table once per
 * batch; the planner prefers one while the table is small enough, and the cost then rises with
 * every row until the plan flips. This test fails the build before such a plan reaches production.
 *
 * <p>The plans are taken with a batch of {@value #BATCH} keys on analysed tables of several sizes,
 * both as a custom plan (the driver's first executions) and as a generic plan (what PostgreSQL may
 * switch to once the driver prepares the statement on the server).
 */
class InboxPlanIT {

  private static final int BATCH = 200;
  private static final String OPERATION = "plan-check";
  private static final List<String> PLAN_CACHE_MODES =
      List.of("force_custom_plan", "force_generic_plan");

  @ParameterizedTest(name = "{0} analysed rows")
  @ValueSource(ints = {2_000, 20_000, 200_000})
  void claimsFindCompletionAndCorrectionReachInboxRowsOnlyThroughThePrimaryKey(int rows)
      throws SQLException {
    try (Database database = MigratedDatabase.create()) {
      fillAndAnalyse(database, rows);
      List<String> stored =
          IntStream.range(0, BATCH).mapToObj(i -> "key-" + (i * 991 % rows + 1)).toList();
      List<String> offered = new ArrayList<>();
      for (int i = 0; i < BATCH; i++) {
        // Half new keys, half keys already stored: both branches of the claim are planned.
        offered.add(i % 2 == 0 ? stored.get(i) : UUID.randomUUID().toString());
      }
      Collections.sort(offered);

      Map<String, String> plans = new LinkedHashMap<>();
      List<String> violations = new ArrayList<>();
      for (String mode : PLAN_CACHE_MODES) {
        for (String claimStatement :
            List.of(InboxStatements.CLAIM, InboxStatements.CLAIM_PRESUMING_SUCCESS)) {
          Plan claim =
              explain(
                  database,
                  mode,
                  claimStatement,
                  texts(""),
                  texts(""),
                  texts(OPERATION),
                  offered,
                  digests(offered),
                  texts("0".repeat(64)),
                  texts("86400"),
                  texts("604800"));
          check(name(claimStatement) + ", " + mode, claim, plans, violations);
        }
        for (String completionStatement :
            List.of(InboxStatements.COMPLETE, InboxStatements.CORRECT_PRESUMED_SUCCESS)) {
          Plan completion =
              explain(
                  database,
                  mode,
                  completionStatement,
                  texts(""),
                  texts(""),
                  texts(OPERATION),
                  stored,
                  digests(stored),
                  texts("FAILED"),
                  texts("REJECTED"),
                  texts("409"),
                  texts("{\"reason\": 1}"));
          check(name(completionStatement) + ", " + mode, completion, plans, violations);
        }
        Plan find =
            explain(
                database,
                mode,
                InboxStatements.FIND,
                texts(""),
                texts(""),
                texts(OPERATION),
                offered,
                digests(offered));
        check("find, " + mode, find, plans, violations);
      }

      assertThat(violations).as("plans:%n%s", plans).isEmpty();
    }
  }

  private static String name(String statement) {
    return statement.equals(InboxStatements.CLAIM)
        ? "claim"
        : statement.equals(InboxStatements.CLAIM_PRESUMING_SUCCESS)
            ? "claim presuming success"
            : statement.equals(InboxStatements.COMPLETE) ? "completion" : "correction";
  }

  private static void fillAndAnalyse(Database database, int rows) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          """
          INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                             completed_at, outcome_expires_at, expires_at)
          SELECT '%s', 'key-' || g, md5(g::text) || md5(g::text), 'COMPLETED', 'SUCCESS', now(),
                 now() + interval '1 day', now() + interval '7 days'
          FROM generate_series(1, %d) g
          """
              .formatted(OPERATION, rows));
      statement.execute("ANALYZE inbox");
    }
  }

  /** One statement's plan, as text for the failure message and as JSON for the checks. */
  private record Plan(String text, String json) {}

  private static void check(
      String name, Plan plan, Map<String, String> plans, List<String> violations) {
    plans.put(name, plan.text());
    List<String> found = new ArrayList<>();
    collectViolations(new ObjectMapper().readTree(plan.json()).get(0).get("Plan"), found);
    found.forEach(v -> violations.add(name + ": " + v));
  }

  /**
   * Every scan of the inbox must be an index scan on inbox_pkey with an index condition (or the
   * fetch of a row id such a scan found), and no hash or merge join may have the inbox below it:
   * such a join reads the whole table or index once per batch.
   */
  private static void collectViolations(JsonNode node, List<String> violations) {
    String type = node.path("Node Type").asString();
    if ("inbox".equals(node.path("Relation Name").asString()) && type.endsWith("Scan")) {
      boolean byPrimaryKey =
          (type.equals("Index Scan") || type.equals("Index Only Scan"))
              && "inbox_pkey".equals(node.path("Index Name").asString())
              && node.has("Index Cond");
      boolean byRowIdFoundThroughThePrimaryKey = type.equals("Tid Scan") && node.has("TID Cond");
      if (!byPrimaryKey && !byRowIdFoundThroughThePrimaryKey) {
        violations.add(type + " on inbox" + indexName(node));
      }
    }
    if ((type.equals("Hash Join") || type.equals("Merge Join")) && readsTheInbox(node)) {
      violations.add(type + " over the inbox");
    }
    for (JsonNode child : node.path("Plans")) {
      collectViolations(child, violations);
    }
  }

  private static boolean readsTheInbox(JsonNode node) {
    if ("inbox".equals(node.path("Relation Name").asString())
        && node.path("Node Type").asString().endsWith("Scan")) {
      return true;
    }
    for (JsonNode child : node.path("Plans")) {
      if (readsTheInbox(child)) {
        return true;
      }
    }
    return false;
  }

  private static String indexName(JsonNode node) {
    return node.has("Index Name") ? " using " + node.get("Index Name").asString() : "";
  }

  /**
   * EXPLAINs {@code sql} as a server-side prepared statement (the text's {@code ?} placeholders
   * become {@code $n}) under the given plan cache mode, with the arrays as literals.
   */
  @SafeVarargs
  private static Plan explain(
      Database database, String planCacheMode, String sql, List<String>... arrays)
      throws SQLException {
    StringBuilder numbered = new StringBuilder();
    int parameter = 0;
    for (char c : sql.toCharArray()) {
      if (c == '?') {
        numbered.append('$').append(++parameter);
      } else {
        numbered.append(c);
      }
    }
    assertThat(parameter).as("parameters in the statement").isEqualTo(arrays.length);
    String arguments =
        java.util.Arrays.stream(arrays)
            .map(InboxPlanIT::arrayLiteral)
            .collect(Collectors.joining(", "));
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute("SET plan_cache_mode = " + planCacheMode);
      statement.execute("PREPARE checked AS " + numbered);
      String text = plan(statement, "EXPLAIN EXECUTE checked(" + arguments + ")");
      String json = plan(statement, "EXPLAIN (FORMAT JSON) EXECUTE checked(" + arguments + ")");
      connection.rollback();
      return new Plan(text, json);
    }
  }

  private static String plan(Statement statement, String explain) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (ResultSet rows = statement.executeQuery(explain)) {
      while (rows.next()) {
        plan.append(rows.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  private static List<String> texts(String value) {
    return Collections.nCopies(BATCH, value);
  }

  /** The keys' digests in bytea's hex input form, as the claim binds them. */
  private static List<String> digests(List<String> keys) {
    return keys.stream()
        .map(key -> KeyDigest.of(Scope.of(OPERATION), IdempotencyKey.of(key)))
        .map(digest -> "\\x" + java.util.HexFormat.of().formatHex(digest))
        .toList();
  }

  private static String arrayLiteral(List<String> values) {
    return values.stream()
        .map(v -> '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"')
        .collect(Collectors.joining(",", "'{", "}'"));
  }
}
