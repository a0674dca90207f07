package dev.inboxoutbox.tools;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One order's (or one key's) path across services, read from their inbox and outbox tables: each
 * key with the claims its consumers made, the events it caused, and under each event the claims of
 * the event id as the next consumer's key. The tables join on the framework's own columns: an
 * event's {@code causation_id} is the key that caused it, and its id is the next consumer's key.
 *
 * <p>It starts from an id that is a key, an event id or an aggregate id (an order id): every event
 * of that aggregate, every event they caused, and the keys that caused them. A key that is no
 * event's id (a client's command, a provider's webhook) is a root of the tree.
 */
final class CausalTrace {

  /** Followed causes at most: a loop in the data ends here instead of running on. */
  private static final int MAX_EVENTS = 10_000;

  private static final String EVENTS =
      """
      SELECT id::text, aggregatetype, aggregateid, type, causation_id, created_at::text,
             published_at::text
      FROM outbox
      WHERE ? IN (aggregateid, causation_id, id::text)
      ORDER BY created_at""";

  private static final String CAUSED =
      """
      SELECT id::text, aggregatetype, aggregateid, type, causation_id, created_at::text,
             published_at::text
      FROM outbox WHERE causation_id = ANY(?::text[]) ORDER BY created_at""";

  private static final String CLAIMS =
      """
      SELECT idempotency_key, operation, status, outcome_code, created_at::text
      FROM inbox WHERE idempotency_key = ANY(?::text[]) ORDER BY created_at""";

  /** An inbox row: a consumer (an operation) claimed the key. */
  record Claim(
      String database, String operation, String status, Integer outcomeCode, String createdAt) {}

  /** An outbox row: an event a key caused. */
  record Event(
      String database,
      String id,
      String aggregateType,
      String aggregateId,
      String type,
      String causationId,
      String createdAt,
      String publishedAt) {}

  /** A key, the claims of it and the events it caused, each with its own node as a key. */
  record Node(String key, List<Claim> claims, List<Caused> caused) {}

  /** An event and what became of its id as the next consumer's key. */
  record Caused(Event event, Node next) {}

  private CausalTrace() {}

  /**
   * The trees for {@code id} over {@code databases} (label to connection), roots first seen first.
   */
  static List<Node> of(String id, Map<String, Connection> databases) throws SQLException {
    Map<String, Event> events = new LinkedHashMap<>();
    for (Map.Entry<String, Connection> database : databases.entrySet()) {
      read(database, EVENTS, events, id);
    }
    Set<String> expanded = new HashSet<>();
    while (events.size() < MAX_EVENTS) {
      List<String> frontier =
          events.keySet().stream().filter(eventId -> !expanded.contains(eventId)).toList();
      if (frontier.isEmpty()) {
        break;
      }
      expanded.addAll(frontier);
      for (Map.Entry<String, Connection> database : databases.entrySet()) {
        read(database, CAUSED, events, (Object) frontier.toArray(String[]::new));
      }
    }
    // The events each key caused, in the order they were written; null: events no key caused.
    Map<String, List<Event>> byCause = new LinkedHashMap<>();
    events
        .values()
        .forEach(
            event ->
                byCause.computeIfAbsent(event.causationId(), c -> new ArrayList<>()).add(event));
    Set<String> keys = new LinkedHashSet<>();
    keys.add(id);
    keys.addAll(byCause.keySet());
    keys.addAll(events.keySet());
    keys.remove(null);
    Map<String, List<Claim>> claims = claims(keys, databases);

    Set<String> roots = new LinkedHashSet<>();
    if (!events.containsKey(id) && (claims.containsKey(id) || byCause.containsKey(id))) {
      roots.add(id);
    }
    byCause.keySet().stream()
        .filter(cause -> cause != null && !events.containsKey(cause))
        .forEach(roots::add);
    List<Node> trees = new ArrayList<>();
    Set<String> visited = new HashSet<>();
    for (String root : roots) {
      trees.add(node(root, byCause, claims, visited));
    }
    List<Caused> uncaused =
        byCause.getOrDefault(null, List.of()).stream()
            .map(event -> new Caused(event, node(event.id(), byCause, claims, visited)))
            .toList();
    if (!uncaused.isEmpty()) {
      trees.add(new Node(null, List.of(), uncaused));
    }
    return trees;
  }

  private static Node node(
      String key,
      Map<String, List<Event>> byCause,
      Map<String, List<Claim>> claims,
      Set<String> visited) {
    if (!visited.add(key)) {
      return new Node(key, List.of(), List.of());
    }
    List<Caused> caused = new ArrayList<>();
    for (Event event : byCause.getOrDefault(key, List.of())) {
      caused.add(new Caused(event, node(event.id(), byCause, claims, visited)));
    }
    return new Node(key, claims.getOrDefault(key, List.of()), caused);
  }

  private static void read(
      Map.Entry<String, Connection> database, String sql, Map<String, Event> into, Object... params)
      throws SQLException {
    try (PreparedStatement statement = database.getValue().prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        if (params[i] instanceof String[] values) {
          statement.setArray(i + 1, database.getValue().createArrayOf("text", values));
        } else {
          statement.setObject(i + 1, params[i]);
        }
      }
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          into.putIfAbsent(
              rows.getString(1),
              new Event(
                  database.getKey(),
                  rows.getString(1),
                  rows.getString(2),
                  rows.getString(3),
                  rows.getString(4),
                  rows.getString(5),
                  rows.getString(6),
                  rows.getString(7)));
        }
      }
    }
  }

  private static Map<String, List<Claim>> claims(
      Set<String> keys, Map<String, Connection> databases) throws SQLException {
    Map<String, List<Claim>> claims = new LinkedHashMap<>();
    for (Map.Entry<String, Connection> database : databases.entrySet()) {
      Connection connection = database.getValue();
      try (PreparedStatement statement = connection.prepareStatement(CLAIMS)) {
        statement.setArray(1, connection.createArrayOf("text", keys.toArray(String[]::new)));
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            claims
                .computeIfAbsent(rows.getString(1), key -> new ArrayList<>())
                .add(
                    new Claim(
                        database.getKey(),
                        rows.getString(2),
                        rows.getString(3),
                        (Integer) rows.getObject(4),
                        rows.getString(5)));
          }
        }
      }
    }
    return claims;
  }

  /** The trees as indented lines, one per claim and per event. */
  static void print(List<Node> trees, PrintStream out) {
    if (trees.isEmpty()) {
      out.println("(nothing: no inbox or outbox row names it)");
    }
    for (Node tree : trees) {
      out.println(tree.key() == null ? "events without a causing key" : "key " + tree.key());
      children(tree, "", out);
      out.println();
    }
  }

  private static void children(Node node, String indent, PrintStream out) {
    int count = node.claims().size() + node.caused().size();
    int index = 0;
    for (Claim claim : node.claims()) {
      boolean last = ++index == count;
      out.println(
          indent
              + (last ? "└─ " : "├─ ")
              + "%s  inbox  %s  %s%s  %s"
                  .formatted(
                      claim.database(),
                      claim.operation(),
                      claim.status(),
                      claim.outcomeCode() == null ? "" : " " + claim.outcomeCode(),
                      claim.createdAt()));
    }
    for (Caused caused : node.caused()) {
      boolean last = ++index == count;
      Event event = caused.event();
      out.println(
          indent
              + (last ? "└─ " : "├─ ")
              + "%s  outbox  %s  %s/%s  event %s  %s"
                  .formatted(
                      event.database(),
                      event.type(),
                      event.aggregateType(),
                      event.aggregateId(),
                      event.id(),
                      event.publishedAt() == null
                          ? "not published"
                          : "published " + event.publishedAt()));
      children(caused.next(), indent + (last ? "   " : "│  "), out);
    }
  }
}
