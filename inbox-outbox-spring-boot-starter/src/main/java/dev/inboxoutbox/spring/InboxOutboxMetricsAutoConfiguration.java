package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelayLag;
import dev.inboxoutbox.relay.RelayState;
import dev.inboxoutbox.retention.RetentionCleaner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer meters for consumers, the relay and retention; registered wherever the application has
 * a MeterRegistry (Actuator, Prometheus, ...). All names start with {@code iox.}.
 */
@AutoConfiguration(
    after = {InboxOutboxAutoConfiguration.class, InboxOutboxRelayAutoConfiguration.class})
@ConditionalOnClass(MeterRegistry.class)
public class InboxOutboxMetricsAutoConfiguration {

  @Bean
  MeterBinder inboxOutboxMeters(
      ObjectProvider<IdempotentConsumers> consumers, ObjectProvider<RetentionTotals> retention) {
    return registry -> {
      consumers.ifAvailable(
          all ->
              all.processors()
                  .forEach((operation, processor) -> bindConsumer(registry, operation, processor)));
      retention.ifAvailable(totals -> bindRetention(registry, totals));
    };
  }

  static void bindConsumer(MeterRegistry registry, String operation, BatchProcessor processor) {
    ConsumerStats stats = processor.stats();
    counter(
        registry,
        "iox.consumer.records",
        "records whose processing finished",
        stats,
        s -> s.snapshot().records(),
        "operation",
        operation);
    counter(
        registry,
        "iox.consumer.claims",
        "keys claimed by result",
        stats,
        s -> s.snapshot().applied(),
        "operation",
        operation,
        "result",
        "new");
    counter(
        registry,
        "iox.consumer.claims",
        "keys claimed by result",
        stats,
        s -> s.snapshot().duplicates(),
        "operation",
        operation,
        "result",
        "duplicate");
    counter(
        registry,
        "iox.consumer.claims",
        "keys claimed by result",
        stats,
        s -> s.deadLetters(DeadLetterReason.CONFLICT),
        "operation",
        operation,
        "result",
        "conflict");
    counter(
        registry,
        "iox.consumer.rejections",
        "business rejections stored as outcomes",
        stats,
        s -> s.snapshot().rejections(),
        "operation",
        operation);
    for (DeadLetterReason reason : DeadLetterReason.values()) {
      counter(
          registry,
          "iox.consumer.dead.letters",
          "records sent to the dead-letter topic",
          stats,
          s -> s.deadLetters(reason),
          "operation",
          operation,
          "reason",
          reason.name());
    }
    counter(
        registry,
        "iox.consumer.transient.failures",
        "batches retried because the database or Kafka failed in a way a retry may fix",
        stats,
        s -> s.snapshot().transientFailures(),
        "operation",
        operation);
    counter(
        registry,
        "iox.consumer.dead.letter.failures",
        "dead-letter sends Kafka refused for good (retried, reported stuck)",
        stats,
        s -> s.snapshot().deadLetterFailures(),
        "operation",
        operation);
    counter(
        registry,
        "iox.consumer.dead.letters.without.value",
        "dead letters sent without the value Kafka refused for its size",
        stats,
        s -> s.snapshot().deadLettersWithoutValue(),
        "operation",
        operation);
    Gauge.builder(
            "iox.consumer.stuck.seconds",
            stats,
            s -> s.failure().map(f -> f.duration(Instant.now()).toMillis() / 1000.0).orElse(0.0))
        .description(
            "how long the oldest failing partition has made no progress (0 = all progressing)")
        .tag("operation", operation)
        .register(registry);
    Gauge.builder(
            "iox.consumer.consecutive.failures",
            stats,
            s -> s.failure().map(ConsumerStats.Failure::consecutiveFailures).orElse(0L))
        .description("failed attempts of the batch retried longest (0 = all progressing)")
        .tag("operation", operation)
        .register(registry);
    Gauge.builder("iox.consumer.stuck", processor, p -> p.stuck().isPresent() ? 1 : 0)
        .description(
            "1 while stuck: failing for stuck-after or longer, or a dead letter Kafka refuses for good")
        .tag("operation", operation)
        .register(registry);
    counter(
        registry,
        "iox.consumer.batch.fallbacks",
        "batches retried one record per transaction",
        stats,
        s -> s.snapshot().batchFallbacks(),
        "operation",
        operation);
    counter(
        registry,
        "iox.consumer.events.emitted",
        "outbox events appended by handlers",
        stats,
        s -> s.snapshot().eventsEmitted(),
        "operation",
        operation);
    counter(
        registry,
        "iox.consumer.transaction.suspensions",
        "times a handler suspended the batch transaction (REQUIRES_NEW, NOT_SUPPORTED); its writes meanwhile escaped it",
        stats,
        s -> s.snapshot().transactionSuspensions(),
        "operation",
        operation);
    FunctionTimer.builder(
            "iox.consumer.handler",
            stats,
            s -> s.snapshot().applied(),
            s -> s.snapshot().handlerNanos(),
            TimeUnit.NANOSECONDS)
        .description("time spent in handlers for new keys")
        .tags("operation", operation)
        .register(registry);
  }

  static void bindRetention(MeterRegistry registry, RetentionTotals totals) {
    counter(registry, "iox.retention.runs", "retention runs", totals, RetentionTotals::runs);
    counter(
        registry,
        "iox.retention.outcomes.pruned",
        "outcome bodies pruned",
        totals,
        RetentionTotals::outcomesPruned);
    counter(
        registry,
        "iox.retention.keys.deleted",
        "expired keys deleted",
        totals,
        RetentionTotals::keysDeleted);
    counter(
        registry,
        "iox.retention.outbox.deleted",
        "published outbox rows deleted",
        totals,
        RetentionTotals::outboxRowsDeleted);
    counter(
        registry,
        "iox.retention.seconds",
        "time spent in retention runs",
        totals,
        RetentionTotals::secondsSpent);
    counter(
        registry,
        "iox.retention.runs.behind",
        "runs whose time budget was spent with work left",
        totals,
        RetentionTotals::runsBehind);
    Gauge.builder("iox.retention.overdue.seconds", totals, RetentionTotals::overdueSeconds)
        .description(
            "how far past due the oldest row left by the step furthest behind is (0 = keeping up)")
        .register(registry);
    for (RetentionCleaner.Step step : RetentionCleaner.Step.values()) {
      Gauge.builder("iox.retention.overdue.rows", totals, t -> t.overdueRows(step))
          .description(
              "overdue rows the latest run left, counted up to "
                  + RetentionCleaner.Backlog.COUNT_LIMIT)
          .tag("step", RetentionTotals.stepName(step))
          .register(registry);
    }
  }

  static <T> void counter(
      MeterRegistry registry,
      String name,
      String description,
      T source,
      ToDoubleFunction<T> count,
      String... tags) {
    FunctionCounter.builder(name, source, count)
        .description(description)
        .tags(tags)
        .register(registry);
  }

  /** Only with inbox-outbox-relay-debezium on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(OutboxRelay.class)
  static class RelayMeters {

    @Bean
    @ConditionalOnBean(OutboxRelay.class)
    MeterBinder outboxRelayMeters(OutboxRelay relay) {
      return registry -> bindRelay(registry, relay);
    }

    static void bindRelay(MeterRegistry registry, OutboxRelay relay) {
      CachedLag lag = new CachedLag(relay);
      counter(
          registry,
          "iox.relay.published",
          "outbox events acknowledged by Kafka (repeats included)",
          relay,
          r -> r.status().publishedEvents());
      counter(
          registry,
          "iox.relay.restarts",
          "relay runs that failed and were restarted",
          relay,
          r -> r.status().restarts());
      for (RelayState state : RelayState.values()) {
        Gauge.builder("iox.relay.state", relay, r -> r.state() == state ? 1 : 0)
            .description("1 for the relay's current state")
            .tag("state", state.name())
            .register(registry);
      }
      Gauge.builder(
              "iox.relay.lag.seconds",
              lag,
              l -> l.get().oldestUnpublished().map(d -> d.toMillis() / 1000.0).orElse(0.0))
          .description("age of the oldest unpublished outbox row")
          .strongReference(true)
          .register(registry);
      Gauge.builder("iox.relay.unpublished.rows", lag, l -> l.get().unpublishedRows())
          .description("kept outbox rows not yet acknowledged by Kafka")
          .strongReference(true)
          .register(registry);
      Gauge.builder("iox.relay.slot.lag.bytes", lag, l -> l.get().slotLagBytes().orElse(0))
          .description("WAL the replication slot holds back")
          .baseUnit("bytes")
          .strongReference(true)
          .register(registry);
    }

    /**
     * Lag costs a query; scrapes within a few seconds share one answer. Only the gauges hold it,
     * and Micrometer gauges hold weakly by default, hence strongReference(true) on them.
     */
    static final class CachedLag {
      private static final Duration FRESH_FOR = Duration.ofSeconds(5);
      private final OutboxRelay relay;
      private RelayLag value;
      private Instant measuredAt = Instant.MIN;

      CachedLag(OutboxRelay relay) {
        this.relay = relay;
      }

      synchronized RelayLag get() {
        if (value == null || Instant.now().isAfter(measuredAt.plus(FRESH_FOR))) {
          try {
            value = relay.lag();
          } catch (RuntimeException e) {
            value = new RelayLag(java.util.Optional.empty(), 0, java.util.OptionalLong.empty());
          }
          measuredAt = Instant.now();
        }
        return value;
      }
    }
  }
}
