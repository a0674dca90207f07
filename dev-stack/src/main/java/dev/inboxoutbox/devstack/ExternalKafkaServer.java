package dev.inboxoutbox.devstack;

/** A cluster somebody else runs; the dev stack only hands out its address. */
record ExternalKafkaServer(String bootstrapServers) implements KafkaServer {

  @Override
  public String description() {
    return "external Kafka at " + bootstrapServers;
  }

  @Override
  public void close() {
    // Not ours to stop.
  }
}
