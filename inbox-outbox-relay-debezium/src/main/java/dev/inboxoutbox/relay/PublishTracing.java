package dev.inboxoutbox.relay;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What the relay tells a tracer about each event it publishes: nothing unless it was given an
 * observation registry, so the relay runs without Micrometer on the class path.
 */
interface PublishTracing {

  /** Observes nothing: the row's trace headers go out as they are. */
  PublishTracing OFF = record -> Publish.UNTRACED;

  /**
   * Starts observing the publication of {@code record}, which carries the row's trace headers; may
   * replace them with its own span's, a child of the row's.
   */
  Publish start(ProducerRecord<String, byte[]> record);

  /** One event's publication, from hand-over to Kafka's acknowledgement. */
  interface Publish {

    Publish UNTRACED =
        new Publish() {
          @Override
          public void failed(Throwable error) {}

          @Override
          public void stop() {}
        };

    void failed(Throwable error);

    void stop();
  }
}
