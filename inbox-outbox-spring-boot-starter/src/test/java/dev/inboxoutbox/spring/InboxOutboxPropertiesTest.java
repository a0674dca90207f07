package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.ConsumerSettings.TooOldPolicy;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox.Retention;
import dev.inboxoutbox.outbox.Outbox.Policy;
import dev.inboxoutbox.spring.web.HttpIdempotencyProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

/** The starter's settings bind through the records' constructors, with the documented defaults. */
class InboxOutboxPropertiesTest {

  @EnableConfigurationProperties({InboxOutboxProperties.class, HttpIdempotencyProperties.class})
  static class BindsTheProperties {}

  private final ApplicationContextRunner context =
      new ApplicationContextRunner().withUserConfiguration(BindsTheProperties.class);

  @Test
  void everyGroupBindsNonDefaultValues() {
    context
        .withPropertyValues(
            "inbox-outbox.schema.migrate=false",
            "inbox-outbox.inbox.outcome-ttl=2h",
            "inbox-outbox.inbox.key-ttl=31d",
            "inbox-outbox.inbox.operations.payment-consumer.outcome-ttl=3h",
            "inbox-outbox.inbox.operations.payment-consumer.key-ttl=40d",
            "inbox-outbox.inbox.operations.audit.key-ttl=2d",
            "inbox-outbox.outbox.policy=delete-after-insert",
            "inbox-outbox.consumer.key-header=X-Key",
            "inbox-outbox.consumer.tenant-header=X-Tenant",
            "inbox-outbox.consumer.principal-header=X-Principal",
            "inbox-outbox.consumer.max-payload-bytes=2048",
            "inbox-outbox.consumer.too-old-policy=apply",
            "inbox-outbox.consumer.dead-letter-suffix=.dead",
            "inbox-outbox.consumer.retry-backoff-min=50ms",
            "inbox-outbox.consumer.retry-backoff-max=20s",
            "inbox-outbox.consumer.stuck-after=3m",
            "inbox-outbox.consumer.concurrency=3",
            "inbox-outbox.relay.enabled=true",
            "inbox-outbox.relay.jdbc-url=jdbc:postgresql://db:5432/orders",
            "inbox-outbox.relay.username=relay",
            "inbox-outbox.relay.password=secret",
            "inbox-outbox.relay.slot-name=orders_slot",
            "inbox-outbox.relay.publication-name=orders_pub",
            "inbox-outbox.relay.topic-replacement=events.orders",
            "inbox-outbox.relay.offset-flush-interval=2s",
            "inbox-outbox.relay.poll-interval=25ms",
            "inbox-outbox.relay.max-batch-size=512",
            "inbox-outbox.relay.max-queue-size=4096",
            "inbox-outbox.relay.heartbeat-interval=20s",
            "inbox-outbox.relay.standby-poll-interval=250ms",
            "inbox-outbox.relay.restart-backoff-min=1s",
            "inbox-outbox.relay.restart-backoff-max=1m",
            "inbox-outbox.retention.enabled=false",
            "inbox-outbox.retention.interval=10m",
            "inbox-outbox.schema.wait-for-database=30s",
            "inbox-outbox.retention.batch-size=250",
            "inbox-outbox.retention.run-budget=5s",
            "inbox-outbox.retention.pause-between-batches=100ms",
            "inbox-outbox.retention.outbox-keep=2d",
            "inbox-outbox.retention.overdue-threshold=45m",
            "inbox-outbox.http.key-header=X-Request-Key",
            "inbox-outbox.http.tenant-header=X-Tenant",
            "inbox-outbox.http.replayed-headers=Location,ETag",
            "inbox-outbox.http.retry-after=3s",
            "inbox-outbox.http.max-request-body=256KB")
        .run(
            started -> {
              assertThat(started).hasNotFailed();
              InboxOutboxProperties properties = started.getBean(InboxOutboxProperties.class);
              assertThat(properties.schema())
                  .isEqualTo(
                      new InboxOutboxProperties.SchemaProperties(false, Duration.ofSeconds(30)));
              assertThat(properties.inbox())
                  .isEqualTo(
                      new InboxOutboxProperties.InboxProperties(
                          Duration.ofHours(2),
                          Duration.ofDays(31),
                          Map.of(
                              "payment-consumer",
                              new InboxOutboxProperties.OperationTtl(
                                  Duration.ofHours(3), Duration.ofDays(40)),
                              "audit",
                              // unset: the application's inbox-outbox.inbox.outcome-ttl
                              new InboxOutboxProperties.OperationTtl(null, Duration.ofDays(2)))));
              assertThat(properties.outbox())
                  .isEqualTo(
                      new InboxOutboxProperties.OutboxProperties(Policy.DELETE_AFTER_INSERT));
              assertThat(properties.consumer())
                  .isEqualTo(
                      new InboxOutboxProperties.ConsumerProperties(
                          "X-Key",
                          "X-Tenant",
                          "X-Principal",
                          2048,
                          TooOldPolicy.APPLY,
                          ".dead",
                          Duration.ofMillis(50),
                          Duration.ofSeconds(20),
                          Duration.ofMinutes(3),
                          3));
              assertThat(properties.relay())
                  .isEqualTo(
                      new InboxOutboxProperties.RelayProperties(
                          true,
                          "jdbc:postgresql://db:5432/orders",
                          "relay",
                          "secret",
                          "orders_slot",
                          "orders_pub",
                          "events.orders",
                          Duration.ofSeconds(2),
                          Duration.ofMillis(25),
                          512,
                          4096,
                          Duration.ofSeconds(20),
                          Duration.ofMillis(250),
                          Duration.ofSeconds(1),
                          Duration.ofMinutes(1)));
              assertThat(properties.retention())
                  .isEqualTo(
                      new InboxOutboxProperties.RetentionProperties(
                          false,
                          Duration.ofMinutes(10),
                          250,
                          Duration.ofSeconds(5),
                          Duration.ofMillis(100),
                          Duration.ofDays(2),
                          Duration.ofMinutes(45)));
              assertThat(started.getBean(HttpIdempotencyProperties.class))
                  .isEqualTo(
                      new HttpIdempotencyProperties(
                          "X-Request-Key",
                          "X-Tenant",
                          List.of("Location", "ETag"),
                          Duration.ofSeconds(3),
                          DataSize.ofKilobytes(256)));
            });
  }

  @Test
  void unsetPropertiesTakeTheDocumentedDefaults() {
    context.run(
        started -> {
          InboxOutboxProperties properties = started.getBean(InboxOutboxProperties.class);
          assertThat(properties.schema().migrate()).isTrue();
          assertThat(properties.inbox())
              .isEqualTo(
                  new InboxOutboxProperties.InboxProperties(
                      Retention.DEFAULT_OUTCOME_TTL, Retention.DEFAULT_KEY_TTL, Map.of()));
          assertThat(properties.outbox().policy()).isEqualTo(Policy.KEEP);
          assertThat(properties.consumer())
              .isEqualTo(
                  new InboxOutboxProperties.ConsumerProperties(
                      IdempotencyKey.HEADER,
                      "",
                      "",
                      1024 * 1024,
                      TooOldPolicy.DEAD_LETTER,
                      ".DLT",
                      Duration.ofMillis(200),
                      Duration.ofSeconds(10),
                      Duration.ofMinutes(1),
                      null));
          // Unset relay settings stay unset: the relay module's RelaySettings holds their defaults.
          assertThat(properties.relay())
              .isEqualTo(
                  new InboxOutboxProperties.RelayProperties(
                      false, null, null, null, null, null, null, null, null, null, null, null, null,
                      null, null));
          assertThat(properties.retention())
              .isEqualTo(
                  new InboxOutboxProperties.RetentionProperties(
                      true,
                      Duration.ofMinutes(5),
                      1000,
                      Duration.ofSeconds(30),
                      Duration.ZERO,
                      Duration.ofDays(7),
                      Duration.ofMinutes(15)));
          assertThat(started.getBean(HttpIdempotencyProperties.class))
              .isEqualTo(
                  new HttpIdempotencyProperties(
                      IdempotencyKey.HEADER,
                      null,
                      List.of("Location"),
                      Duration.ofSeconds(1),
                      DataSize.ofMegabytes(1)));
        });
  }

  @Test
  void aValueThatDoesNotConvertFailsTheContextNamingTheProperty() {
    context
        .withPropertyValues("inbox-outbox.inbox.key-ttl=a week")
        .run(
            started -> {
              assertThat(started)
                  .getFailure()
                  .cause()
                  .hasMessage(
                      "Failed to bind properties under 'inbox-outbox.inbox.key-ttl' to java.time.Duration");
              assertThat(started)
                  .getFailure()
                  .rootCause()
                  .hasMessage("'a week' is not a valid duration");
            });
    context
        .withPropertyValues("inbox-outbox.consumer.too-old-policy=ignore")
        .run(
            started ->
                assertThat(started)
                    .getFailure()
                    .cause()
                    .hasMessage(
                        "Failed to bind properties under 'inbox-outbox.consumer.too-old-policy' to dev.inboxoutbox.consumer.ConsumerSettings$TooOldPolicy"));
  }

  @Test
  void theOverdueThresholdFollowsTheIntervalUnlessSet() {
    context
        .withPropertyValues("inbox-outbox.retention.interval=1h")
        .run(
            started ->
                assertThat(
                        started.getBean(InboxOutboxProperties.class).retention().overdueThreshold())
                    .isEqualTo(Duration.ofHours(3)));
  }

  @Test
  void aRetentionTimingThatCannotWorkFailsTheContextSayingWhy() {
    context
        .withPropertyValues("inbox-outbox.retention.run-budget=0s")
        .run(
            started ->
                assertThat(started)
                    .getFailure()
                    .rootCause()
                    .hasMessage("inbox-outbox.retention.run-budget must be positive; was PT0S"));
    context
        .withPropertyValues("inbox-outbox.retention.interval=-1m")
        .run(
            started ->
                assertThat(started)
                    .getFailure()
                    .rootCause()
                    .hasMessage("inbox-outbox.retention.interval must be positive; was PT-1M"));
    context
        .withPropertyValues(
            "inbox-outbox.retention.interval=10m", "inbox-outbox.retention.overdue-threshold=10m")
        .run(
            started ->
                assertThat(started)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith(
                        "inbox-outbox.retention.overdue-threshold (PT10M) must be longer than"
                            + " inbox-outbox.retention.interval (PT10M)"));
  }

  @Test
  void theRelayPasswordStaysOutOfToString() {
    context
        .withPropertyValues("inbox-outbox.relay.password=hunter2")
        .run(
            started ->
                assertThat(started.getBean(InboxOutboxProperties.class).relay().toString())
                    .doesNotContain("hunter2")
                    .contains("password=******"));
  }
}
