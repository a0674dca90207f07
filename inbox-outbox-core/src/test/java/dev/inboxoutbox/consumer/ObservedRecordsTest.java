package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.RecordTracing.Decision;
import dev.inboxoutbox.consumer.RecordTracing.RecordObservation;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class ObservedRecordsTest {

  private final PrometheusMeterRegistry meters =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ObservedRecords records = new ObservedRecords(observedInto(meters), "orders");

  /**
   * Prometheus keeps one set of tag keys per meter name and drops a meter with another set (with a
   * single WARN, then silence): the timers of every decision must carry the same keys, or a
   * dashboard of absorbed duplicates shows none whenever an applied record was timed first.
   */
  @Test
  void everyDecisionIsTimedUnderOneSetOfTagKeys() {
    RecordObservation applied = records.start(record(0), "key-0");
    applied.decided(Decision.NEW);
    applied.outcome(false);
    applied.stop();
    RecordObservation rejected = records.start(record(1), "key-1");
    rejected.decided(Decision.NEW);
    rejected.outcome(true);
    rejected.stop();
    RecordObservation repeat = records.start(record(2), "key-0");
    repeat.decided(Decision.DUPLICATE);
    repeat.stop();
    RecordObservation conflict = records.start(record(3), "key-0");
    conflict.decided(Decision.CONFLICT);
    conflict.stop();
    records.deadLettered(record(4), DeadLetterReason.MALFORMED_PAYLOAD);
    RecordObservation unreachable = records.start(record(5), "key-5");
    unreachable.failed(new IllegalStateException("the database is down"));
    unreachable.stop();

    assertThat(scraped("inbox_decision"))
        .containsExactlyInAnyOrder("new", "new", "duplicate", "conflict", "dead-letter", "none");
    assertThat(scraped("inbox_outcome"))
        .containsExactlyInAnyOrder("success", "rejection", "none", "none", "none", "none");
    assertThat(scraped("inbox_dead_letter_reason"))
        .containsExactlyInAnyOrder("none", "none", "none", "none", "MALFORMED_PAYLOAD", "none");
  }

  @Test
  void theTagsSayWhatTheyAreAbout() {
    records.deadLettered(record(0), DeadLetterReason.OVERSIZE);

    Meter.Id id = meters.get("inbox.consume").timer().getId();
    assertThat(id.getTag("inbox.operation")).isEqualTo("orders");
    assertThat(id.getTag("messaging.system")).isEqualTo("kafka");
    assertThat(id.getTag("messaging.destination.name")).isEqualTo("orders.commands");
  }

  /** The values of {@code label} on the scraped {@code inbox.consume} timers, one per timer. */
  private List<String> scraped(String label) {
    Pattern value = Pattern.compile("[{,]" + label + "=\"([^\"]*)\"");
    return meters
        .scrape()
        .lines()
        .filter(line -> line.startsWith("inbox_consume_seconds_count{"))
        .map(
            line -> {
              Matcher matcher = value.matcher(line);
              return matcher.find() ? matcher.group(1) : "(no " + label + ")";
            })
        .toList();
  }

  private static ObservationRegistry observedInto(PrometheusMeterRegistry meters) {
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
    return observations;
  }

  private static ConsumerRecord<String, byte[]> record(long offset) {
    return new ConsumerRecord<>("orders.commands", 0, offset, "order-" + offset, new byte[0]);
  }
}
