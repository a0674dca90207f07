package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.inboxoutbox.devstack.spring.DevStackEnvironment;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class DevStackIT {

  private final DevStack stack = DevStack.shared();

  @Test
  void springContextsOfOneApplicationNameShareTheirDatabase() {
    String name = "iox-shared-db-" + UUID.randomUUID();
    String first = datasourceOfAContext(name);
    String sameName = datasourceOfAContext(name);
    String other = datasourceOfAContext("iox-shared-db-" + UUID.randomUUID());

    // What docs/test-kit.md tells a Spring test: its database is kept, not clean per test class.
    assertThat(sameName).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
  }

  private static String datasourceOfAContext(String applicationName) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addLast(
            new MapPropertySource(
                "application", Map.of("spring.application.name", applicationName)));
    new DevStackEnvironment().postProcessEnvironment(environment, new SpringApplication());
    return environment.getProperty("spring.datasource.url");
  }

  @Test
  void theSharedStackRefusesAKafkaPortItsBrokerDoesNotListenOn() throws IOException {
    int elsewhere;
    try (ServerSocket socket = new ServerSocket(0)) {
      elsewhere = socket.getLocalPort();
    }
    DevStackSettings asked = DevStackSettings.fromEnvironment().withKafkaPort(elsewhere);

    assertThatThrownBy(() -> DevStack.shared(asked))
        .isInstanceOf(DevStackException.class)
        .hasMessageContaining("iox.kafka.port=" + elsewhere)
        .hasMessageContaining(stack.kafka().bootstrapServers());
  }

  @Test
  void postgresRunsWithLogicalDecodingForDebezium() throws SQLException {
    try (Database database = stack.postgres().createDatabase();
        Connection connection = database.connect()) {
      assertThat(queryString(connection, "SHOW wal_level")).isEqualTo("logical");
    }
  }

  @Test
  void eachDatabaseStartsEmptyAndIsDroppedOnClose() throws SQLException {
    Database first = stack.postgres().createDatabase();
    try (Connection connection = first.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE leftover (id int)");
    }
    try (Database second = stack.postgres().createDatabase();
        Connection connection = second.connect()) {
      assertThat(second.name()).isNotEqualTo(first.name());
      assertThat(
              queryString(
                  connection,
                  "SELECT count(*)::text FROM information_schema.tables WHERE table_name = 'leftover'"))
          .isEqualTo("0");

      first.close();

      assertThat(
              queryString(
                  connection,
                  "SELECT count(*)::text FROM pg_database WHERE datname = '" + first.name() + "'"))
          .isEqualTo("0");
    }
  }

  @Test
  void databaseDropsReplicationSlotsLeftBehind() throws SQLException {
    Database database = stack.postgres().createDatabase();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_create_logical_replication_slot('leftover_slot', 'pgoutput')");
    }

    database.close();

    try (Database other = stack.postgres().createDatabase();
        Connection connection = other.connect()) {
      assertThat(
              queryString(
                  connection,
                  "SELECT count(*)::text FROM pg_replication_slots WHERE slot_name = 'leftover_slot'"))
          .isEqualTo("0");
    }
  }

  /**
   * Instances started together on a fresh server all ask for the same named database; the CREATE
   * DATABASE of all but one collides with the winner's, which must count as success.
   */
  @RepeatedTest(5)
  void instancesAskingForTheSameNewDatabaseAtOnceAllGetIt() throws Exception {
    int instances = 8;
    String name = "iox_same_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    CyclicBarrier start = new CyclicBarrier(instances);
    ExecutorService threads = Executors.newFixedThreadPool(instances);
    try {
      List<Future<Database>> asked =
          IntStream.range(0, instances)
              .mapToObj(
                  i ->
                      threads.submit(
                          () -> {
                            start.await();
                            return stack.postgres().database(name);
                          }))
              .toList();
      for (Future<Database> database : asked) {
        assertThat(database.get().name()).isEqualTo(name);
      }
      try (Connection connection = asked.get(0).get().connect()) {
        assertThat(queryString(connection, "SELECT current_database()")).isEqualTo(name);
      }
    } finally {
      threads.shutdownNow();
      dropNamedDatabase(name);
    }
  }

  @Test
  void kafkaBrokerAcceptsAndDeliversRecords() throws Exception {
    String topic = "dev-stack-" + UUID.randomUUID();
    Map<String, Object> producerConfig =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
      producer.send(new ProducerRecord<>(topic, "key", "hello")).get();
    }
    Map<String, Object> consumerConfig =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.kafka().bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "dev-stack-it",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> seen = new ArrayList<>();
      // On the test's thread: a KafkaConsumer refuses use from two threads.
      await("the record on " + topic)
          .atMost(Duration.ofSeconds(30))
          .pollInSameThread()
          .pollInterval(Duration.ofMillis(1))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                return !seen.isEmpty();
              });
      assertThat(seen).extracting(ConsumerRecord::value).containsExactly("hello");
    }
  }

  @Test
  void aStackWhoseKafkaCannotStartNamesThePortAndStopsItsPostgres() throws Exception {
    DevStackSettings defaults = embeddedPostgresSettings();
    assumeTrue(defaults.kafkaBootstrap().isEmpty(), "needs the in-JVM Kafka");
    int postgresPort = freePort();
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      DevStackSettings settings =
          defaults.withPostgresPort(postgresPort).withKafkaPort(taken.getLocalPort());
      assertThatThrownBy(() -> DevStack.start(settings).close())
          .hasMessageContaining(String.valueOf(taken.getLocalPort()));
    }
    // PostgreSQL was starting alongside Kafka: it must be stopped before start() throws, not left
    // to finish starting (and hold its port) afterwards.
    await("port " + postgresPort + " staying free after the failed start")
        .failFast(
            "PostgreSQL took port " + postgresPort + " after the failed start",
            () -> !canBind(postgresPort))
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> canBind(postgresPort));
  }

  @Test
  void theEmbeddedServerRunsWithTheSharedBuffersItIsGiven() throws SQLException {
    DevStackSettings defaults = embeddedPostgresSettings();
    try (EmbeddedPostgresServer server =
            EmbeddedPostgresServer.start(defaults.withPostgresSharedBuffers("192MB"));
        Database database = server.createDatabase();
        Connection connection = database.connect()) {
      assertThat(queryString(connection, "SHOW shared_buffers")).isEqualTo("192MB");
      assertThat(queryString(connection, "SHOW wal_level")).isEqualTo("logical");
    }
  }

  /**
   * The kernel hands out its ephemeral ports for {@code bind(0)}, which is how the in-JVM broker's
   * listeners take theirs while PostgreSQL starts beside them. One of them took the port zonky had
   * picked that way: the server could not bind it, and zonky's readiness check, connected to the
   * broker instead, waited for an answer for good (an {@code iox bench} hung for minutes).
   */
  @Test
  void anEmbeddedServerWithoutAPortListensBelowTheEphemeralRange() throws IOException {
    DevStackSettings defaults = embeddedPostgresSettings();
    Path workDir = Files.createDirectories(defaults.workDir());
    try (EmbeddedPostgres server =
        EmbeddedPostgresServer.embedded(
            workDir,
            workDir.resolve("data-" + UUID.randomUUID()),
            0,
            EmbeddedPostgresServer.SERVER_SETTINGS)) {
      assertThat(server.getPort()).isLessThan(FreePorts.ephemeralRangeStart());
    }
  }

  /** The environment's settings, when they start an embedded PostgreSQL; skips the test if not. */
  private static DevStackSettings embeddedPostgresSettings() {
    DevStackSettings defaults = DevStackSettings.fromEnvironment();
    assumeTrue(
        defaults.postgresMode() == DevStackSettings.PostgresMode.EMBEDDED,
        "needs the embedded PostgreSQL");
    return defaults;
  }

  /** Named databases survive close by design; this test's own must not outlive it. */
  private void dropNamedDatabase(String name) throws SQLException {
    try (Database other = stack.postgres().createDatabase();
        Connection connection = other.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static boolean canBind(int port) {
    try (ServerSocket socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String queryString(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }
}
