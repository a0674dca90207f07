package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.kafka.TopicReader;
import io.debezium.embedded.ClientProvided;
import io.debezium.embedded.async.ConvertingAsyncEngineBuilderFactory;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.SerializationFormat;
import io.debezium.engine.format.SimpleString;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.Driver;

/**
 * The relay configuration docs/relay.md hands to teams that run Debezium Server or Kafka Connect
 * instead of the embedded relay: the checked-in files, run as Debezium Server runs them, must put
 * outbox rows on Kafka with the topic, key, value and headers the embedded relay gives them.
 */
class RelayConfigurationFilesIT {

  private static final Path FILES =
      Path.of(System.getProperty("basedir", ".")).resolve("../docs/relay").normalize();
  private static final Path SERVER_PROPERTIES = FILES.resolve("debezium-server.properties");
  private static final Path CONNECT_JSON = FILES.resolve("kafka-connect-outbox.json");
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /** Quarkus expands {@code ${NAME}} (here the IOX_* values) and unescapes {@code \$}. */
  private static final Pattern EXPRESSION = Pattern.compile("(?<!\\\\)\\$\\{([^}]+)}");

  @TempDir Path work;
  private Database database;
  private String slot;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @BeforeEach
  void createDatabase() {
    database = MigratedDatabase.create();
    slot = "iox_cfg_" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
    try (Connection connection = database.connect();
        PreparedStatement drop =
            connection.prepareStatement(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE slot_name = ?")) {
      drop.setString(1, slot);
      drop.executeQuery().close();
    }
    database.close();
  }

  @Test
  void theServerPropertiesPublishOutboxRowsAsTheEmbeddedRelayDoesAndLoseNoneOverARestart()
      throws Exception {
    Map<String, String> server = serverConfiguration();
    String aggregateType = "cfg" + UUID.randomUUID().toString().substring(0, 8);
    Outbox outbox = Outbox.builder().build();

    ServerRun first = started(ServerRun.start(server));
    awaitStreaming(first);
    OutboxEvent traced =
        OutboxEvent.builder(
                aggregateType, "order-1", "OrderPlaced", "{\"total\": 12, \"items\": [1]}")
            .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .tracestate("congo=t61rcWkgMzE")
            .correlationId("corr-1")
            .causationId("cause-1")
            .build();
    OutboxEvent untraced =
        OutboxEvent.of(aggregateType, "order-2", "OrderPaid", "{\"paid\": true}");
    append(outbox, List.of(traced, untraced));

    String topic = "outbox.event." + aggregateType;
    try (TopicReader reader = new TopicReader(topic)) {
      List<ConsumerRecord<String, byte[]>> records =
          reader.readUntil(seen -> first.stillRunning() && eventIds(seen).size() == 2, PATIENCE);
      assertRelayedAsTheEmbeddedRelayDoes(byEventId(records).get(traced.id().toString()), traced);
      assertRelayedAsTheEmbeddedRelayDoes(
          byEventId(records).get(untraced.id().toString()), untraced);
    }

    first.close();
    await("slot " + slot + " released")
        .atMost(PATIENCE)
        .until(() -> Boolean.FALSE.equals(slotActive()));
    List<OutboxEvent> whileStopped = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      whileStopped.add(
          OutboxEvent.of(aggregateType, "order-3", "OrderStep", "{\"step\": " + i + "}"));
    }
    append(outbox, whileStopped);
    ServerRun second = started(ServerRun.start(server));
    awaitStreaming(second);
    OutboxEvent afterRestart =
        OutboxEvent.of(aggregateType, "order-3", "OrderStep", "{\"step\": 5}");
    append(outbox, List.of(afterRestart));

    try (TopicReader reader = new TopicReader(topic)) {
      List<ConsumerRecord<String, byte[]>> records =
          reader.readUntil(seen -> second.stillRunning() && eventIds(seen).size() == 8, PATIENCE);
      Map<String, ConsumerRecord<String, byte[]>> byId = byEventId(records);
      whileStopped.forEach(
          event -> assertRelayedAsTheEmbeddedRelayDoes(byId.get(event.id().toString()), event));
      assertRelayedAsTheEmbeddedRelayDoes(byId.get(afterRestart.id().toString()), afterRestart);
      List<String> steps =
          records.stream()
              .filter(r -> "order-3".equals(r.key()))
              .map(r -> header(r, "id"))
              .distinct()
              .toList();
      List<String> appended = new ArrayList<>();
      whileStopped.forEach(event -> appended.add(event.id().toString()));
      appended.add(afterRestart.id().toString());
      assertThat(steps).as("one aggregate's events keep their order").isEqualTo(appended);
    }
    second.close();
  }

  @Test
  void theKafkaConnectJsonCarriesTheServerPropertiesConnectorSettings() throws IOException {
    Map<String, String> server = new LinkedHashMap<>();
    rawServerProperties().forEach((name, value) -> server.put((String) name, (String) value));
    JsonNode json = new ObjectMapper().readTree(CONNECT_JSON.toFile());
    Map<String, String> connect = new LinkedHashMap<>();
    json.get("config")
        .fields()
        .forEachRemaining(e -> connect.put(e.getKey(), e.getValue().asText()));

    Map<String, String> serverConnector = new LinkedHashMap<>();
    server.forEach(
        (name, value) -> {
          String connectorName = null;
          if (name.startsWith("debezium.source.") && !name.startsWith("debezium.source.offset.")) {
            connectorName = name.substring("debezium.source.".length());
          } else if (name.equals("debezium.transforms")
              || name.startsWith("debezium.transforms.")) {
            connectorName = name.substring("debezium.".length());
          }
          if (connectorName != null) {
            // Quarkus' ${IOX_X} is Kafka Connect's ${env:IOX_X}; \${routedByValue} is the router's
            // own.
            serverConnector.put(
                connectorName,
                value
                    .replaceAll("(?<!\\\\)\\$\\{(IOX_[A-Z_]+)}", "\\${env:$1}")
                    .replace("\\${", "${"));
          }
        });
    Map<String, String> connectConnector = new LinkedHashMap<>(connect);
    Set.of("tasks.max", "key.converter", "value.converter", "header.converter")
        .forEach(connectConnector::remove);
    // Topic creation is Kafka Connect's; Debezium Server's sink relies on the broker's.
    connectConnector.keySet().removeIf(name -> name.startsWith("topic.creation."));

    assertThat(connectConnector).isEqualTo(serverConnector);
    assertThat(server)
        .containsEntry("debezium.format.key", "simplestring")
        .containsEntry("debezium.format.value", "simplestring")
        .containsEntry("debezium.format.header", "clientprovided")
        .containsEntry("debezium.format.header.class", connect.get("header.converter"));
    assertThat(connect)
        .containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter")
        .containsEntry("value.converter", "org.apache.kafka.connect.storage.StringConverter")
        .containsEntry("tasks.max", "1");
  }

  private ServerRun started(ServerRun run) {
    cleanup.add(run);
    return run;
  }

  /** What KafkaPublisher writes for an outbox row. */
  private static void assertRelayedAsTheEmbeddedRelayDoes(
      ConsumerRecord<String, byte[]> record, OutboxEvent event) {
    assertThat(record).as("record of event " + event.id()).isNotNull();
    assertThat(record.key()).isEqualTo(event.aggregateId());
    assertThat(parsed(value(record))).isEqualTo(parsed(event.payloadJson()));
    assertThat(header(record, "id")).isEqualTo(event.id().toString());
    assertThat(header(record, "Idempotency-Key")).isEqualTo(event.id().toString());
    assertThat(header(record, "type")).isEqualTo(event.type());
    assertThat(optionalHeader(record, "traceparent")).isEqualTo(event.traceparent());
    assertThat(optionalHeader(record, "tracestate")).isEqualTo(event.tracestate());
    assertThat(optionalHeader(record, "correlation-id")).isEqualTo(event.correlationId());
    assertThat(optionalHeader(record, "causation-id")).isEqualTo(event.causationId());
    record.headers().forEach(h -> assertThat(h.key()).doesNotStartWith("__debezium"));
  }

  /**
   * The router adds a header for an empty column with a null value, where the embedded relay adds
   * none (docs/relay.md lists this difference): both read as absent.
   */
  private static Optional<String> optionalHeader(ConsumerRecord<?, ?> record, String name) {
    org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? Optional.empty()
        : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
  }

  private static JsonNode parsed(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  private static Set<String> eventIds(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream().map(r -> header(r, "id")).collect(Collectors.toSet());
  }

  private static Map<String, ConsumerRecord<String, byte[]>> byEventId(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<String, ConsumerRecord<String, byte[]>> byId = new HashMap<>();
    records.forEach(r -> byId.putIfAbsent(header(r, "id"), r));
    return byId;
  }

  private void append(Outbox outbox, List<OutboxEvent> events) throws SQLException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      outbox.appendAll(connection, events);
      connection.commit();
    }
  }

  /** Until the engine streams from the slot; an engine that failed on the way fails the test. */
  private void awaitStreaming(ServerRun run) {
    await("slot " + slot + " streaming")
        .atMost(PATIENCE)
        .until(
            () -> {
              run.throwIfFailed();
              return Boolean.TRUE.equals(slotActive());
            });
  }

  private Boolean slotActive() {
    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
      query.setString(1, slot);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? row.getBoolean(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Properties rawServerProperties() throws IOException {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(SERVER_PROPERTIES, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    return properties;
  }

  /** The properties file with this test's database, broker, slot and offsets file filled in. */
  private Map<String, String> serverConfiguration() throws IOException {
    Properties url = Driver.parseURL(database.jdbcUrl(), new Properties());
    Map<String, String> environment =
        Map.of(
            "IOX_KAFKA_BOOTSTRAP_SERVERS", DevStack.shared().kafka().bootstrapServers(),
            "IOX_DB_HOST", url.getProperty("PGHOST"),
            "IOX_DB_PORT", url.getProperty("PGPORT"),
            "IOX_DB_NAME", url.getProperty("PGDBNAME"),
            "IOX_DB_USER", database.username(),
            "IOX_DB_PASSWORD",
                database.password() == null || database.password().isEmpty()
                    ? "unused-with-trust-auth"
                    : database.password(),
            "IOX_SLOT_NAME", slot,
            "IOX_OFFSETS_FILE", work.resolve("offsets.dat").toString());
    Map<String, String> expanded = new LinkedHashMap<>();
    rawServerProperties()
        .forEach((name, value) -> expanded.put((String) name, expand((String) value, environment)));
    return expanded;
  }

  private static String expand(String value, Map<String, String> environment) {
    Matcher expression = EXPRESSION.matcher(value);
    StringBuilder expanded = new StringBuilder();
    while (expression.find()) {
      String name = expression.group(1);
      assertThat(environment).as("Quarkus would fail to expand ${" + name + "}").containsKey(name);
      expression.appendReplacement(expanded, Matcher.quoteReplacement(environment.get(name)));
    }
    expression.appendTail(expanded);
    return expanded.toString().replace("\\${", "${");
  }

  /**
   * One Debezium Server run, reduced to what it does with the properties: the engine properties
   * derived the way io.debezium.server.DebeziumServer derives them, the formats it maps its names
   * to, and its Kafka sink's send-then-mark loop.
   */
  private static final class ServerRun implements AutoCloseable {
    private final DebeziumEngine<ChangeEvent<Object, Object>> engine;
    private final KafkaProducer<Object, Object> producer;
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private boolean closed;

    private ServerRun(Map<String, String> server) {
      Map<String, Object> producerProperties =
          new HashMap<>(subset(server, "debezium.sink.kafka.producer."));
      producer = new KafkaProducer<>(producerProperties);
      engine =
          DebeziumEngine.create(
                  format(server.get("debezium.format.key")),
                  format(server.get("debezium.format.value")),
                  format(server.get("debezium.format.header")),
                  ConvertingAsyncEngineBuilderFactory.class.getName())
              .using(engineProperties(server))
              .notifying(this::send)
              .using(
                  (success, message, error) -> {
                    if (success) {
                      done.complete(null);
                    } else {
                      done.completeExceptionally(
                          error != null ? error : new IllegalStateException(message));
                    }
                  })
              .build();
    }

    void throwIfFailed() {
      if (done.isCompletedExceptionally()) {
        throw new AssertionError("the engine stopped", done.handle((ok, error) -> error).join());
      }
    }

    /** True while the engine runs; fails the test at once when it stopped on an error. */
    boolean stillRunning() {
      throwIfFailed();
      return true;
    }

    static ServerRun start(Map<String, String> server) {
      ServerRun run = new ServerRun(server);
      run.thread.execute(run.engine);
      return run;
    }

    private void send(
        List<ChangeEvent<Object, Object>> records,
        DebeziumEngine.RecordCommitter<ChangeEvent<Object, Object>> committer)
        throws InterruptedException {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (ChangeEvent<Object, Object> record : records) {
        RecordHeaders headers = new RecordHeaders();
        for (Header<Object> header : record.<Object>headers()) {
          headers.add(header.getKey(), bytes(header.getValue()));
        }
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    record.destination(), null, null, record.key(), record.value(), headers)));
      }
      for (int i = 0; i < records.size(); i++) {
        try {
          sent.get(i).get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        }
        committer.markProcessed(records.get(i));
      }
      committer.markBatchFinished();
    }

    private static byte[] bytes(Object value) {
      if (value == null || value instanceof byte[]) {
        return (byte[]) value;
      }
      if (value instanceof String text) {
        return text.getBytes(StandardCharsets.UTF_8);
      }
      throw new IllegalStateException("Debezium Server's sink refuses a " + value.getClass());
    }

    private static Properties engineProperties(Map<String, String> server) {
      Properties engine = new Properties();
      engine.putAll(subset(server, "debezium.source."));
      Map<String, String> formats = subset(server, "debezium.format.");
      formats.forEach(
          (name, value) -> {
            for (String part : List.of("key", "value", "header")) {
              if (name.startsWith(part + ".")) {
                engine.setProperty(part + ".converter." + name.substring(part.length() + 1), value);
              }
            }
          });
      if (server.containsKey("debezium.transforms")) {
        engine.setProperty("transforms", server.get("debezium.transforms"));
        subset(server, "debezium.transforms.")
            .forEach((n, v) -> engine.setProperty("transforms." + n, v));
      }
      engine.setProperty("name", server.get("debezium.sink.type"));
      return engine;
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends SerializationFormat<Object>> format(String name) {
      Class<?> format =
          switch (name == null ? "json" : name) {
            case "json" -> Json.class;
            case "simplestring" -> SimpleString.class;
            case "clientprovided" -> ClientProvided.class;
            default -> throw new IllegalArgumentException("format not covered here: " + name);
          };
      return (Class<? extends SerializationFormat<Object>>) format;
    }

    private static Map<String, String> subset(Map<String, String> server, String prefix) {
      Map<String, String> subset = new LinkedHashMap<>();
      server.forEach(
          (name, value) -> {
            if (name.startsWith(prefix)) {
              subset.put(name.substring(prefix.length()), value);
            }
          });
      return subset;
    }

    @Override
    public void close() throws Exception {
      if (closed) {
        return;
      }
      closed = true;
      if (!done.isDone()) {
        engine.close();
      }
      try {
        done.get(30, TimeUnit.SECONDS);
      } finally {
        thread.shutdownNow();
        producer.close(Duration.ofSeconds(5));
      }
    }
  }
}
