package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerStats;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while every idempotent consumer makes progress, including one retrying for less than {@code
 * inbox-outbox.consumer.stuck-after}; DOWN once one is stuck: a partition whose batch has failed
 * for that long, a batch that has not finished for that long, or a dead letter Kafka refuses for
 * good (no retry fixes it, so DOWN at once). Details per operation: state ({@code OK}, {@code
 * RETRYING}, {@code STUCK}), the assignment (the partitions each of its consumers holds now, by
 * Kafka client id) and, while failing, since, seconds, consecutive failures, whether a retry can
 * help, the last error and the failing partitions.
 */
final class IdempotentConsumersHealthIndicator extends AbstractHealthIndicator {

  private final IdempotentConsumers consumers;

  IdempotentConsumersHealthIndicator(IdempotentConsumers consumers) {
    super("idempotent consumers health check failed");
    this.consumers = consumers;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Instant now = Instant.now();
    boolean anyStuck = false;
    for (Map.Entry<String, BatchProcessor> consumer : consumers.processors().entrySet()) {
      BatchProcessor processor = consumer.getValue();
      Optional<ConsumerStats.Failure> failure = processor.stats().failure();
      Map<String, Object> details = new LinkedHashMap<>();
      if (failure.isEmpty()) {
        details.put("state", "OK");
        details.put("assignment", consumers.assignment(consumer.getKey()));
      } else {
        ConsumerStats.Failure failing = failure.get();
        boolean stuck = failing.stuck(processor.settings().stuckAfter(), now);
        anyStuck |= stuck;
        details.put("state", stuck ? "STUCK" : "RETRYING");
        details.put("assignment", consumers.assignment(consumer.getKey()));
        details.put("since", failing.since().toString());
        details.put("seconds", failing.duration(now).toSeconds());
        details.put("consecutiveFailures", failing.consecutiveFailures());
        details.put("retriable", failing.retriable());
        details.put("lastError", failing.lastError());
        details.put(
            "partitions", failing.partitions().stream().map(Object::toString).sorted().toList());
      }
      builder.withDetail(consumer.getKey(), details);
    }
    if (anyStuck) {
      builder.down();
    } else {
      builder.up();
    }
  }
}
