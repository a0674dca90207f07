package dev.inboxoutbox.spring;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelayState;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.support.KafkaHeaders;

class InboxOutboxStarterIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private String topic;
  private DevStackApplication app;
  private ConfigurableApplicationContext context;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    IdempotentConsumerDefinition orders() {
      return IdempotentConsumerDefinition.of(
          "starter-orders",
          (message, context) -> {
            try (PreparedStatement insert =
                context.connection().prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
              insert.setString(1, message.idempotencyKey().value());
              insert.executeUpdate();
            }
            context.emit(OutboxEvent.of("order", message.recordKey(), "OrderPlaced", "{}"));
            return Outcome.success();
          },
          System.getProperty("test.topic"));
    }

    /** Marks every container the application's factory creates. */
    @Bean
    ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>>
        marksContainers() {
      return container ->
          container.getContainerProperties().setClientId("customized-by-the-application");
    }
  }

  @BeforeEach
  void start() throws SQLException {
    topic = "starter-" + UUID.randomUUID().toString().substring(0, 8);
    System.setProperty("test.topic", topic);
    app =
        DevStackApplication.start(
            App.class,
            WebApplicationType.NONE,
            "CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)",
            "inbox-outbox.relay.enabled=true",
            "inbox-outbox.relay.topic-replacement=" + topic + ".events.${routedByValue}",
            "inbox-outbox.relay.offset-flush-interval=300ms",
            "inbox-outbox.retention.interval=200ms",
            "inbox-outbox.consumer.retry-backoff-max=500ms",
            "spring.kafka.listener.poll-timeout=1234ms");
    context = app.context();
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void listenerContainersComeFromTheApplicationsFactoryWithTheGuaranteeSettingsOnTop() {
    List<ConcurrentMessageListenerContainer<?, ?>> containers =
        context.getBean(IdempotentConsumers.class).containers();
    assertThat(containers).hasSize(1);
    ContainerProperties properties = containers.get(0).getContainerProperties();
    assertThat(properties.getPollTimeout())
        .as("spring.kafka.listener.poll-timeout")
        .isEqualTo(1234);
    assertThat(properties.getClientId())
        .as("the application's container customizer")
        .isEqualTo("customized-by-the-application");
    assertThat(properties.getGroupId()).isEqualTo("starter-orders");
    assertThat(properties.getAckMode()).isEqualTo(ContainerProperties.AckMode.BATCH);
    assertThat(properties.getKafkaConsumerProperties())
        .containsEntry("value.deserializer", ByteArrayDeserializer.class.getName())
        .containsEntry("enable.auto.commit", "false");
  }

  @Test
  void propertiesWireTheConsumerRelayRetentionMetricsAndHealth() throws Exception {
    OutboxRelay relay = context.getBean(OutboxRelay.class);
    await("relay running").atMost(PATIENCE).until(() -> relay.state() == RelayState.RUNNING);
    await("slot active")
        .atMost(PATIENCE)
        .until(
            () ->
                count(
                        "SELECT count(*) FROM pg_replication_slots WHERE database = current_database() AND active")
                    == 1);

    try (TopicWriter kafka = new TopicWriter()) {
      for (int i = 0; i < 6; i++) {
        kafka.send(record("o-" + i, "k-" + i, "{\"n\":" + i + "}"));
      }
      kafka.send(record("o-1", "k-1", "{\"n\":1}")); // a redelivery
      kafka.send(record("o-2", "k-2", "{\"n\":1}")); // same key, other payload
      kafka.send(record("o-3", "k-bad", "{\"n\":")); // malformed
    }

    IdempotentConsumers consumers = context.getBean(IdempotentConsumers.class);
    await("records consumed")
        .atMost(PATIENCE)
        .until(() -> consumers.stats().get("starter-orders").snapshot().records() >= 9);
    assertThat(Topics.assignorOf("starter-orders"))
        .as("the framework's default assignor")
        .isEqualTo("cooperative-sticky");
    await("events relayed")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0 && relay.status().publishedEvents() >= 6);
    RetentionTotals retention = context.getBean(RetentionTotals.class);
    await("retention runs on its schedule").atMost(PATIENCE).until(() -> retention.runs() >= 2);

    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(6);
    assertThat(count("SELECT count(*) FROM iox_schema_history WHERE success"))
        .isGreaterThanOrEqualTo(2);

    MeterRegistry meters = context.getBean(MeterRegistry.class);
    assertThat(
            meters
                .get("iox.consumer.claims")
                .tag("operation", "starter-orders")
                .tag("result", "new")
                .functionCounter()
                .count())
        .isEqualTo(6);
    assertThat(
            meters.get("iox.consumer.claims").tag("result", "duplicate").functionCounter().count())
        .isEqualTo(1);
    assertThat(
            meters.get("iox.consumer.claims").tag("result", "conflict").functionCounter().count())
        .isEqualTo(1);
    assertThat(
            meters
                .get("iox.consumer.dead.letters")
                .tag("reason", "MALFORMED_PAYLOAD")
                .functionCounter()
                .count())
        .isEqualTo(1);
    assertThat(meters.get("iox.consumer.handler").functionTimer().count()).isEqualTo(6);
    assertThat(meters.get("iox.relay.published").functionCounter().count())
        .isGreaterThanOrEqualTo(6);
    assertThat(meters.get("iox.relay.state").tag("state", "RUNNING").gauge().value()).isEqualTo(1);
    assertThat(meters.get("iox.relay.unpublished.rows").gauge().value()).isZero();
    assertThat(meters.get("iox.retention.runs").functionCounter().count())
        .isGreaterThanOrEqualTo(2);

    RelayHealthIndicator health = context.getBean(RelayHealthIndicator.class);
    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
    assertThat(health.health(true).getDetails()).containsEntry("state", "RUNNING");

    context.close();
    assertThat(relay.state()).isEqualTo(RelayState.STOPPED);
  }

  @Test
  void aValueTooLargeForTheDeadLetterProducerIsLeftOutAndTheListenerMovesOn() throws Exception {
    // Compressed, 2 MiB passes the broker; uncompressed it is over the dead-letter producer's
    // default max.request.size of 1 MiB.
    byte[] twoMiB =
        ("{\"pad\":\"" + "p".repeat(2 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
    RecordMetadata bigAt;
    try (TopicWriter compressing =
        new TopicWriter(
            Map.of(
                "compression.type", "gzip", "max.request.size", String.valueOf(4 * 1024 * 1024)))) {
      bigAt =
          compressing.send(RecordBuilder.to(topic).key("o-1").idempotencyKey("k-big").body(twoMiB));
      compressing.send(record("o-1", "k-after", "{\"n\":1}"));
    }

    IdempotentConsumers consumers = context.getBean(IdempotentConsumers.class);
    await("both records done")
        .atMost(PATIENCE)
        .until(() -> consumers.stats().get("starter-orders").snapshot().records() >= 2);
    ConsumerRecord<String, byte[]> dead = firstRecordOf(topic + ".DLT");
    assertThat(dead.key()).isEqualTo("o-1");
    assertThat(dead.value()).isNull();
    assertThat(header(dead, DeadLetterReason.Headers.REASON)).isEqualTo("OVERSIZE");
    assertThat(header(dead, DeadLetterReason.Headers.VALUE_OMITTED_BYTES))
        .isEqualTo(String.valueOf(twoMiB.length));
    assertThat(header(dead, "Idempotency-Key")).isEqualTo("k-big");
    // What spring-kafka's DeadLetterPublishingRecoverer writes, with its types, for its tooling.
    assertThat(header(dead, KafkaHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(topic);
    assertThat(ByteBuffer.wrap(bytes(dead, KafkaHeaders.DLT_ORIGINAL_PARTITION)).getInt())
        .isEqualTo(bigAt.partition());
    assertThat(ByteBuffer.wrap(bytes(dead, KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong())
        .isEqualTo(bigAt.offset());
    assertThat(ByteBuffer.wrap(bytes(dead, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP)).getLong())
        .isEqualTo(bigAt.timestamp());
    assertThat(header(dead, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE)).isEqualTo("CreateTime");
    assertThat(header(dead, KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP)).isEqualTo("starter-orders");
    assertThat(header(dead, KafkaHeaders.DLT_EXCEPTION_FQCN))
        .isEqualTo(DeadLetterReason.class.getName());
    assertThat(header(dead, KafkaHeaders.DLT_EXCEPTION_MESSAGE)).startsWith("OVERSIZE: ");
    assertThat(count("SELECT count(*) FROM orders WHERE key = 'k-after'")).isEqualTo(1);

    MeterRegistry meters = context.getBean(MeterRegistry.class);
    assertThat(
            meters
                .get("iox.consumer.dead.letters.without.value")
                .tag("operation", "starter-orders")
                .functionCounter()
                .count())
        .isEqualTo(1);
    assertThat(meters.get("iox.consumer.stuck").tag("operation", "starter-orders").gauge().value())
        .isZero();
    IdempotentConsumersHealthIndicator health =
        context.getBean(IdempotentConsumersHealthIndicator.class);
    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
    assertThat(health.health(true).getDetails().get("starter-orders"))
        .asInstanceOf(InstanceOfAssertFactories.MAP)
        .containsEntry("state", "OK")
        .containsKey("assignment");
  }

  @Test
  void aDeadLetterKafkaRefusesForGoodShowsTheConsumerStuckInHealthAndMetricsUntilItIsFixed()
      throws Exception {
    String deadLetterTopic = topic + ".DLT";
    // Smaller than the headers of any dead letter.
    Topics.create(deadLetterTopic, 1, Map.of("max.message.bytes", "100"));
    TopicWriter.sendOne(record("o-1", "k-bad", "{\"n\":"));

    IdempotentConsumersHealthIndicator health =
        context.getBean(IdempotentConsumersHealthIndicator.class);
    await("health DOWN")
        .atMost(PATIENCE)
        .until(() -> health.health(true).getStatus().equals(Status.DOWN));
    @SuppressWarnings("unchecked")
    Map<String, Object> details =
        (Map<String, Object>) health.health(true).getDetails().get("starter-orders");
    assertThat(details)
        .containsEntry("state", "STUCK")
        .containsEntry("retriable", false)
        .containsKey("since");
    assertThat((String) details.get("lastError")).contains("RecordTooLargeException");
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    assertThat(meters.get("iox.consumer.stuck").tag("operation", "starter-orders").gauge().value())
        .isEqualTo(1);
    assertThat(
            meters
                .get("iox.consumer.consecutive.failures")
                .tag("operation", "starter-orders")
                .gauge()
                .value())
        .isGreaterThanOrEqualTo(1);
    assertThat(
            meters
                .get("iox.consumer.dead.letter.failures")
                .tag("operation", "starter-orders")
                .functionCounter()
                .count())
        .isGreaterThanOrEqualTo(1);
    assertThat(
            meters
                .get("iox.consumer.stuck.seconds")
                .tag("operation", "starter-orders")
                .gauge()
                .value())
        .isGreaterThanOrEqualTo(0);

    Topics.set(deadLetterTopic, "max.message.bytes", "1048588");
    await("health UP once the topic takes the dead letter")
        .atMost(PATIENCE)
        .until(() -> health.health(true).getStatus().equals(Status.UP));
    assertThat(header(firstRecordOf(deadLetterTopic), DeadLetterReason.Headers.REASON))
        .isEqualTo("MALFORMED_PAYLOAD");
    assertThat(meters.get("iox.consumer.stuck").tag("operation", "starter-orders").gauge().value())
        .isZero();
  }

  @Test
  void configurationMetadataDescribesTheProperties() throws Exception {
    try (InputStream metadata =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(metadata).isNotNull();
      String json = new String(metadata.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json)
          .contains("\"inbox-outbox.relay.enabled\"")
          .contains("\"inbox-outbox.relay.heartbeat-interval\"")
          .contains("\"inbox-outbox.consumer.too-old-policy\"")
          .contains("\"inbox-outbox.retention.batch-size\"")
          .contains("\"inbox-outbox.inbox.key-ttl\"")
          .contains("Run the relay in this application");
    }
  }

  private ProducerRecord<String, byte[]> record(String recordKey, String key, String json) {
    return RecordBuilder.to(topic).key(recordKey).idempotencyKey(key).json(json).build();
  }

  private static ConsumerRecord<String, byte[]> firstRecordOf(String topicName) {
    try (TopicReader reader = new TopicReader(topicName)) {
      return reader.readUntil(records -> !records.isEmpty(), PATIENCE).get(0);
    }
  }

  private static byte[] bytes(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    assertThat(header).as("header %s", name).isNotNull();
    return header.value();
  }

  private long count(String sql) {
    return Rows.count(app.database().dataSource(), sql);
  }
}
