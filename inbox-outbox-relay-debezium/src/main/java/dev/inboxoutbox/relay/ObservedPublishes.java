package dev.inboxoutbox.relay;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Publications observed with Micrometer: an event whose outbox row carries a trace context is read
 * as an {@code outbox.relay} observation continuing it, and sent as an {@code outbox.relay.publish}
 * observation under that one, from hand-over to Kafka's acknowledgement. The publish span's context
 * replaces the row's in the record's headers, so the consumer's span nests under the publication.
 * Events without a trace context go out untraced, as they came.
 */
final class ObservedPublishes implements PublishTracing {

  static final String RELAY = "outbox.relay";
  static final String PUBLISH = "outbox.relay.publish";

  private final ObservationRegistry registry;

  ObservedPublishes(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Publish start(ProducerRecord<String, byte[]> record) {
    if (registry.isNoop() || header(record, "traceparent") == null) {
      return Publish.UNTRACED;
    }
    ReceiverContext<ProducerRecord<String, byte[]>> read =
        new ReceiverContext<>(ObservedPublishes::header);
    read.setCarrier(record);
    read.setRemoteServiceName("postgresql");
    Observation relay =
        Observation.createNotStarted(RELAY, () -> read, registry)
            .contextualName("outbox relay")
            .lowCardinalityKeyValue("messaging.destination.name", record.topic())
            .start();
    SenderContext<ProducerRecord<String, byte[]>> send =
        new SenderContext<>(
            (carrier, name, value) -> {
              carrier.headers().remove(name);
              carrier.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
            });
    send.setCarrier(record);
    send.setRemoteServiceName("kafka");
    Observation publish =
        Observation.createNotStarted(PUBLISH, () -> send, registry)
            .contextualName(record.topic() + " publish")
            .parentObservation(relay)
            .lowCardinalityKeyValue("messaging.system", "kafka")
            .lowCardinalityKeyValue("messaging.destination.name", record.topic())
            .start();
    return new Publish() {
      @Override
      public void failed(Throwable error) {
        publish.error(error);
        relay.error(error);
      }

      @Override
      public void stop() {
        publish.stop();
        relay.stop();
      }
    };
  }

  private static String header(ProducerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
