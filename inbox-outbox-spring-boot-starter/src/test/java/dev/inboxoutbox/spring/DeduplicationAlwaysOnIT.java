package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The inbox is not a setting: no property lets a repeat apply twice. Only code can change what the
 * inbox sees, through an {@link IdempotentConsumerCustomizer} bean (what the chaos negative control
 * installs), or turn it off with an {@link Inbox#off()} bean (what the chaos run's price of the
 * inbox measures against).
 */
class DeduplicationAlwaysOnIT {

  private DevStackApplication app;

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

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.class)
  static class AppWithTheInboxOff {
    @Bean
    Inbox inboxOff() {
      return Inbox.off();
    }
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
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

  @Test
  void anInboxBeanThatIsOffReplacesTheStartersAndStoresNothing() throws Exception {
    ConsumerStats stats = deliverTwiceTo(AppWithTheInboxOff.class);

    assertThat(stats.snapshot().duplicates()).isZero();
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM inbox")).isZero();
  }

  /**
   * Sends one record twice (a redelivery) and starts {@code application} until it consumed both.
   */
  private ConsumerStats deliverTwiceTo(Class<?> application, String... properties)
      throws Exception {
    String topic = "always-on-" + UUID.randomUUID().toString().substring(0, 8);
    System.setProperty("always-on.topic", topic);
    try (TopicWriter kafka = new TopicWriter()) {
      for (int delivery = 0; delivery < 2; delivery++) {
        kafka.send(RecordBuilder.to(topic).key("c-1").idempotencyKey("key-1").json("{\"qty\":1}"));
      }
    }
    // No unique constraint on purpose: only the inbox may stop a second effect.
    app =
        DevStackApplication.start(
            application,
            WebApplicationType.NONE,
            "CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)",
            properties);
    ConsumerStats stats =
        app.context().getBean(IdempotentConsumers.class).stats().get("always-on-orders");
    await().atMost(Duration.ofSeconds(60)).until(() -> stats.snapshot().records() >= 2);
    return stats;
  }

  private long count(String sql) {
    return Rows.count(app.database().dataSource(), sql);
  }
}
