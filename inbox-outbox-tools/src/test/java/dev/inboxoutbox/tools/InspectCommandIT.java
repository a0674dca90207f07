package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.testing.kafka.Topics;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code iox inspect} against a real PostgreSQL database with the framework's tables. */
class InspectCommandIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String KEY = "3f2b8c1e-7d4a-4f0e-9a61-5c2d8e9b0a17";
  private static final String EVENT = "9c1d7e2a-4b3f-4a8e-b5d6-0e1f2a3b4c5d";

  private Database database;

  @BeforeEach
  void setUp() throws Exception {
    database = DevStack.shared().postgres().createDatabase();
    InboxOutboxSchema.migrate(database.dataSource());
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          """
          INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                             outcome_code, outcome_body, completed_at, outcome_expires_at,
                             expires_at)
          VALUES ('order-consumer', '%s', repeat('a', 64), 'COMPLETED', 'SUCCESS', 200,
                  '{"orderId":"o-1","status":"PLACED","totalCents":1500}', now(),
                  now() + interval '1 day', now() + interval '7 days')"""
              .formatted(KEY));
      statement.execute(
          """
          INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, causation_id)
          VALUES ('%s', 'order', 'o-1', 'PaymentRequested', '{}', '%s')"""
              .formatted(EVENT, KEY));
    }
  }

  @AfterEach
  void tearDown() {
    database.close();
  }

  @Test
  void namesTheDatabaseAndKeepsEveryValueWholeAndApart() {
    ToolRun run = inspect();

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("database " + database.jdbcUrl() + " as ");
    // UUID, timestamp and status stand apart: at least two spaces between columns.
    assertThat(run.out()).containsPattern(KEY + " {2,}COMPLETED {2,}200 {2,}");
    assertThat(run.out()).containsPattern(EVENT + " {2,}order {2,}o-1 {2,}PaymentRequested {2,}");
    assertThat(run.out())
        .contains("{\"status\": \"PLACED\", \"orderId\": \"o-1\", \"totalCents\": 1500}");
  }

  @Test
  void jsonGivesEachSectionsRowsAsObjects() throws Exception {
    ToolRun run = inspect("--json");

    assertThat(run.exitCode()).isZero();
    JsonNode document = JsonMapper.builder().build().readTree(run.out());
    assertThat(document.path("database").asString()).isEqualTo(database.jdbcUrl());
    JsonNode latest = document.path("sections").path("latest inbox rows");
    assertThat(latest.size()).isEqualTo(1);
    assertThat(latest.get(0).path("idempotency_key").asString()).isEqualTo(KEY);
    assertThat(latest.get(0).path("outcome_code").asInt()).isEqualTo(200);
    assertThat(
            document
                .path("sections")
                .path("outbox events caused by " + KEY)
                .get(0)
                .path("id")
                .asString())
        .isEqualTo(EVENT);
  }

  @Test
  void anUnreachableDatabaseIsOneLineAndExitCode2() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/nowhere";

    ToolRun run = ToolRun.of("inspect", "--jdbc-url", url, "--user", "postgres");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip())
        .startsWith("iox inspect: cannot connect to " + url + " as postgres: ");
    assertThat(run.err().strip().lines()).hasSize(1);
  }

  @Test
  void aRefusedLoginIsOneLineAndExitCode2() {
    // Without the URL's own user parameter, which would win over --user.
    String url = database.jdbcUrl().replaceFirst("\\?.*", "");
    ToolRun run =
        ToolRun.of("inspect", "--jdbc-url", url, "--user", "nobody_here", "--password", "x");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip())
        .startsWith("iox inspect: cannot connect to " + url + " as nobody_here: ")
        .contains("SQL state 28");
    assertThat(run.err().strip().lines()).hasSize(1);
  }

  @Test
  void withBootstrapEachConsumerGroupsMembersShowTheirPartitions() throws Exception {
    String operation = "inspect-" + UUID.randomUUID().toString().substring(0, 8);
    String topic = operation + "-orders";
    Topics.create(topic, 2, Map.of());
    insertInboxRow(operation);
    String bootstrap = DevStack.shared().kafka().bootstrapServers();
    try (KafkaConsumer<String, String> member =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, operation,
                ConsumerConfig.CLIENT_ID_CONFIG, "inspect-it-member"),
            new StringDeserializer(),
            new StringDeserializer())) {
      member.subscribe(List.of(topic));
      await("the member holds both partitions")
          .atMost(PATIENCE)
          .until(
              () -> {
                member.poll(Duration.ofMillis(100));
                return member.assignment().size() == 2;
              });

      // The groups are the inbox's operations unless --group names them.
      ToolRun text = inspect("--bootstrap", bootstrap);
      assertThat(text.exitCode()).isZero();
      assertThat(text.out())
          .contains("kafka " + bootstrap + "\n")
          .contains("== consumer group members");
      assertThat(text.out())
          .containsPattern(
              operation
                  + " {2,}Stable {2,}inspect-it-member {2,}\\S+ {2,}"
                  + Pattern.quote(topic + "(0,1)"));

      ToolRun json = inspect("--bootstrap", bootstrap, "--group", operation, "--json");
      assertThat(json.exitCode()).isZero();
      JsonNode document = JsonMapper.builder().build().readTree(json.out());
      assertThat(document.path("kafka").asString()).isEqualTo(bootstrap);
      JsonNode members = document.path("sections").path("consumer group members");
      assertThat(members.size()).isEqualTo(1);
      assertThat(members.get(0).path("group").asString()).isEqualTo(operation);
      assertThat(members.get(0).path("state").asString()).isEqualTo("Stable");
      assertThat(members.get(0).path("client_id").asString()).isEqualTo("inspect-it-member");
      assertThat(members.get(0).path("assignment").valueStream().map(JsonNode::asString))
          .containsExactly(topic + "-0", topic + "-1");
    }
  }

  @Test
  void aBrokerNobodyListensOnIsOneLineAndExitCode2() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String bootstrap = "127.0.0.1:" + closedPort;

    ToolRun run = inspect("--bootstrap", bootstrap);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip())
        .startsWith("iox inspect: cannot describe consumer groups on " + bootstrap + ": ");
    assertThat(run.err().strip().lines()).hasSize(1);
  }

  @Test
  void groupsWithoutABrokerAreRefused() {
    ToolRun run = inspect("--group", "order-consumer");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--group needs --bootstrap");
  }

  /**
   * An order's path over two services' databases, as the order and payment consumers write it: the
   * client's command, the event it caused, the payment service's claim of that event and the events
   * after it; the provider's webhook is a second root, whose event comes back to the orders.
   */
  @Test
  void traceFollowsAnOrderFromItsCommandAndItsWebhookAcrossBothDatabases() throws Exception {
    String charge = "5d0c2a8e-1f3b-4c7d-9e6a-2b4c6d8e0f13";
    String webhook = "evt_provider_77";
    String captured = "7a3e9c1b-2d4f-4e6a-8b0c-1d2e3f4a5b6c";
    String paid = "0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b";
    try (Database payments = DevStack.shared().postgres().createDatabase()) {
      InboxOutboxSchema.migrate(payments.dataSource());
      execute(payments, claim("payment-requests", EVENT));
      execute(payments, event(charge, "payment", "p-1", "ChargeRequested", EVENT));
      execute(payments, claim("provider-webhooks", webhook));
      execute(payments, event(captured, "order", "o-1", "PaymentCaptured", webhook));
      execute(database, claim("order-payments", captured));
      execute(database, event(paid, "order", "o-1", "OrderPaid", captured));
      String orders = InspectCommand.databaseName(database.jdbcUrl());
      String paymentsName = InspectCommand.databaseName(payments.jdbcUrl());

      ToolRun text =
          inspect("--trace", "o-1", "--downstream-jdbc-url", payments.jdbcUrl(), "--latest", "0");

      assertThat(text.exitCode()).as(text.err()).isZero();
      String tree = text.out().substring(text.out().indexOf("== trace of o-1"));
      assertThat(tree)
          .containsPattern(
              "(?s)key "
                  + KEY
                  + "\n├─ "
                  + orders
                  + "  inbox  order-consumer  COMPLETED 200  .*"
                  + "\n└─ "
                  + orders
                  + "  outbox  PaymentRequested  order/o-1  event "
                  + EVENT
                  + "  not published"
                  + "\n   ├─ "
                  + paymentsName
                  + "  inbox  payment-requests  COMPLETED 200  .*"
                  + "\n   └─ "
                  + paymentsName
                  + "  outbox  ChargeRequested  payment/p-1  event "
                  + charge)
          .containsPattern(
              "(?s)key "
                  + webhook
                  + "\n├─ "
                  + paymentsName
                  + "  inbox  provider-webhooks  COMPLETED 200  .*"
                  + "\n└─ "
                  + paymentsName
                  + "  outbox  PaymentCaptured  order/o-1  event "
                  + captured
                  + ".*\n   ├─ "
                  + orders
                  + "  inbox  order-payments  COMPLETED 200  .*"
                  + "\n   └─ "
                  + orders
                  + "  outbox  OrderPaid  order/o-1  event "
                  + paid);

      ToolRun json =
          inspect("--trace", "o-1", "--downstream-jdbc-url", payments.jdbcUrl(), "--json");
      JsonNode trace = JsonMapper.builder().build().readTree(json.out()).path("trace");
      assertThat(trace.size()).isEqualTo(2);
      JsonNode fromTheCommand = trace.get(0).path("caused").get(0);
      assertThat(fromTheCommand.path("event").path("id").asString()).isEqualTo(EVENT);
      assertThat(fromTheCommand.path("next").path("claims").get(0).path("database").asString())
          .isEqualTo(paymentsName);
      assertThat(
              trace
                  .get(1)
                  .path("caused")
                  .get(0)
                  .path("next")
                  .path("caused")
                  .get(0)
                  .path("event")
                  .path("type")
                  .asString())
          .isEqualTo("OrderPaid");
    }
  }

  @Test
  void traceOfAnIdNoRowNamesSaysSo() {
    ToolRun run = inspect("--trace", "nobody-knows-this", "--latest", "0");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("== trace of nobody-knows-this\n(nothing: no inbox or outbox");
  }

  private static String claim(String operation, String key) {
    return """
        INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                           outcome_code, outcome_body, completed_at, outcome_expires_at,
                           expires_at)
        VALUES ('%s', '%s', repeat('a', 64), 'COMPLETED', 'SUCCESS', 200, '{}', now(),
                now() + interval '1 day', now() + interval '7 days')"""
        .formatted(operation, key);
  }

  private static String event(
      String id, String aggregateType, String aggregateId, String type, String causation) {
    return """
        INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, causation_id)
        VALUES ('%s', '%s', '%s', '%s', '{}', '%s')"""
        .formatted(id, aggregateType, aggregateId, type, causation);
  }

  private static void execute(Database database, String sql) throws Exception {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private void insertInboxRow(String operation) throws Exception {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          """
          INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                             outcome_code, outcome_body, completed_at, outcome_expires_at,
                             expires_at)
          VALUES ('%s', 'k-1', repeat('a', 64), 'COMPLETED', 'SUCCESS', 200, '{}', now(),
                  now() + interval '1 day', now() + interval '7 days')"""
              .formatted(operation));
    }
  }

  private ToolRun inspect(String... more) {
    String[] args = {
      "inspect",
      "--jdbc-url",
      database.jdbcUrl(),
      "--user",
      database.username(),
      "--password",
      database.password(),
      "--key",
      KEY
    };
    String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return ToolRun.of(all);
  }
}
