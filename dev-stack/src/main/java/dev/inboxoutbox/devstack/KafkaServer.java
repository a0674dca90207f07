package dev.inboxoutbox.devstack;

/** A running Kafka cluster. */
public interface KafkaServer extends AutoCloseable {

  /** The {@code bootstrap.servers} value for clients. */
  String bootstrapServers();

  /** Where the cluster is, for logs. */
  String description();

  @Override
  void close();
}
