package dev.inboxoutbox.consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Records observed with Micrometer: one {@code inbox.consume} observation per record, continuing
 * the trace of the record's {@code traceparent} header (as the relay copies it from the outbox
 * row), tagged with the operation and what the inbox decided. The handler runs with it current, so
 * its JDBC and HTTP spans nest under it, and a tracer's log correlation puts its ids in the MDC.
 */
final class ObservedRecords implements RecordTracing {

  static final String NAME = "inbox.consume";

  /** The value of a tag that does not apply to a record, such as the outcome of a duplicate. */
  static final String NONE = "none";

  // Set to NONE when the observation is made and overwritten where they apply: one key each.
  private static final String DECISION = "inbox.decision";
  private static final String OUTCOME = "inbox.outcome";
  private static final String DEAD_LETTER_REASON = "inbox.dead_letter.reason";

  private final ObservationRegistry registry;
  private final String operation;

  ObservedRecords(ObservationRegistry registry, String operation) {
    this.registry = registry;
    this.operation = operation;
  }

  @Override
  public RecordObservation start(ConsumerRecord<String, byte[]> record, String key) {
    Observation observation = observation(record, key).start();
    return new RecordObservation() {
      @Override
      public void decided(Decision decision) {
        observation.lowCardinalityKeyValue(DECISION, decision.tag);
      }

      @Override
      public void outcome(boolean rejection) {
        observation.lowCardinalityKeyValue(OUTCOME, rejection ? "rejection" : "success");
      }

      @Override
      public <T> T inScope(Work<T> work) throws Exception {
        try (Observation.Scope scope = observation.openScope()) {
          return work.run();
        }
      }

      @Override
      public void failed(Throwable error) {
        observation.error(error);
      }

      @Override
      public void stop() {
        observation.stop();
      }
    };
  }

  @Override
  public void deadLettered(ConsumerRecord<String, byte[]> record, DeadLetterReason reason) {
    observation(record, null)
        .lowCardinalityKeyValue(DECISION, Decision.DEAD_LETTER.tag)
        .lowCardinalityKeyValue(DEAD_LETTER_REASON, reason.name())
        .start()
        .stop();
  }

  private Observation observation(ConsumerRecord<String, byte[]> record, String key) {
    ReceiverContext<ConsumerRecord<String, byte[]>> context =
        new ReceiverContext<>(ObservedRecords::header);
    context.setCarrier(record);
    context.setRemoteServiceName("kafka");
    Observation observation =
        Observation.createNotStarted(NAME, () -> context, registry)
            .contextualName(record.topic() + " process")
            .lowCardinalityKeyValue("inbox.operation", operation)
            // Every observation carries every key, "none" where it does not apply: Prometheus
            // keeps one set of tag keys per meter name and drops timers with another.
            .lowCardinalityKeyValue(DECISION, NONE)
            .lowCardinalityKeyValue(OUTCOME, NONE)
            .lowCardinalityKeyValue(DEAD_LETTER_REASON, NONE)
            .lowCardinalityKeyValue("messaging.system", "kafka")
            .lowCardinalityKeyValue("messaging.destination.name", record.topic())
            .highCardinalityKeyValue(
                "messaging.kafka.partition", String.valueOf(record.partition()))
            .highCardinalityKeyValue("messaging.kafka.offset", String.valueOf(record.offset()));
    if (key != null) {
      observation.highCardinalityKeyValue("inbox.idempotency_key", key);
    }
    return observation;
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
