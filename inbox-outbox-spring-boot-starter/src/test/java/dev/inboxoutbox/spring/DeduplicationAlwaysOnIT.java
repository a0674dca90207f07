package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The inbox is not a setting: no property lets a repeat apply twice. Only code can change what the
 * inbox sees, through an {@link IdempotentConsumerCustomizer} bean (what the chaos negative control
 * installs).
 */
class DeduplicationAlwaysOnIT {

  private Database database;
  private ConfigurableApplicationContext context;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    IdempotentConsumerDefinition orders() {
      return IdempotentConsumerDefinition.of(
          "always-on-orders",
          (message, context) -> {
            try (PreparedStatement insert =
                context.connection().prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
              insert.setString(1, message.idempotencyKey().value());
              insert.executeUpdate();
            }
            return Outcome.success();
          },
          System.getProperty("always-on.topic"));
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.class)
  static class AppWithANewKeyPerDelivery {
    @Bean
    IdempotentConsumerCustomizer newKeyPerDelivery() {
      return (operation, settings) -> {
        KeyExtractor real = settings.keyExtractor();
        settings.keyExtractor(
            (record, payload) -> real.extract(record, payload) + "~" + UUID.randomUUID());
      };
    }
  }

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
    database.close();
  }

  @Test
  void theFormerDedupSwitchNoLongerLetsARepeatApplyTwice() throws Exception {
    ConsumerStats stats =
        deliverTwiceTo(
            App.class,
            "inbox-outbox.consumer.dedup-enabled=false",
            "inbox-outbox.chaos.crash-points.MID_HANDLER=0");

    assertThat(stats.snapshot().duplicates()).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(1);
  }

  @Test
  void aCustomizerBeanChangesTheSettingsOfEveryConsumer() throws Exception {
    ConsumerStats stats = deliverTwiceTo(AppWithANewKeyPerDelivery.class);

    assertThat(stats.snapshot().duplicates()).isZero();
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(2);
  }

  /** Sends one record twice (a redelivery) and starts {@code app} until it consumed both. */
  private ConsumerStats deliverTwiceTo(Class<?> app, String... properties) throws Exception {
    database = DevStack.shared().postgres().createDatabase();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // No unique constraint on purpose: only the inbox may stop a second effect.
      statement.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)");
    }
    String topic = "always-on-" + UUID.randomUUID().toString().substring(0, 8);
    System.setProperty("always-on.topic", topic);
    String bootstrap = DevStack.shared().kafka().bootstrapServers();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int delivery = 0; delivery < 2; delivery++) {
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, "c-1", "{\"qty\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", "key-1".getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
      }
    }
    context =
        new SpringApplicationBuilder(app)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password(),
                "spring.kafka.bootstrap-servers=" + bootstrap)
            .properties(properties)
            .run();
    ConsumerStats stats =
        context.getBean(IdempotentConsumers.class).stats().get("always-on-orders");
    await().atMost(Duration.ofSeconds(60)).until(() -> stats.snapshot().records() >= 2);
    return stats;
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
