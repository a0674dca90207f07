package dev.inboxoutbox.consumer;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What the consumer tells a tracer about each record: nothing unless the processor was given an
 * observation registry, so core runs without Micrometer on the class path.
 */
interface RecordTracing {

  /** Observes nothing. */
  RecordTracing OFF =
      new RecordTracing() {
        @Override
        public RecordObservation start(ConsumerRecord<String, byte[]> record, String key) {
          return RecordObservation.NONE;
        }

        @Override
        public void deadLettered(ConsumerRecord<String, byte[]> record, DeadLetterReason reason) {}
      };

  /** Starts observing the claim of {@code record} under {@code key} and what follows from it. */
  RecordObservation start(ConsumerRecord<String, byte[]> record, String key);

  /** A record dead-lettered without a claim (invalid, or failing alone in its handler). */
  void deadLettered(ConsumerRecord<String, byte[]> record, DeadLetterReason reason);

  /** What the inbox decided about a record's key. */
  enum Decision {
    /** Claimed now: the handler applied it. */
    NEW("new"),
    /** Claimed before with the same payload: absorbed, the stored outcome stands. */
    DUPLICATE("duplicate"),
    /** Claimed before with another payload: dead-lettered, never applied. */
    CONFLICT("conflict"),
    /** Not claimed: dead-lettered with its reason. */
    DEAD_LETTER("dead-letter");

    final String tag;

    Decision(String tag) {
      this.tag = tag;
    }
  }

  /** One record's observation. */
  interface RecordObservation {

    RecordObservation NONE =
        new RecordObservation() {
          @Override
          public void decided(Decision decision) {}

          @Override
          public void outcome(boolean rejection) {}

          @Override
          public <T> T inScope(Work<T> work) throws Exception {
            return work.run();
          }

          @Override
          public void failed(Throwable error) {}

          @Override
          public void stop() {}
        };

    void decided(Decision decision);

    /** The handler's outcome: a business rejection or a success. */
    void outcome(boolean rejection);

    /** Runs the handler with this observation current, so its own spans and logs nest under it. */
    <T> T inScope(Work<T> work) throws Exception;

    void failed(Throwable error);

    void stop();
  }

  /** Work run inside an observation's scope. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws Exception;
  }
}
