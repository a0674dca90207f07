package dev.inboxoutbox.test;

import java.util.List;

/** How the kit's records reach the application's consumers, and how those are restarted. */
interface Target extends AutoCloseable {

  /** The hooks the consumers call. */
  ScenarioHooks hooks();

  /** Kafka's bootstrap servers, when the target knows them (a Spring context does). */
  String bootstrapServers();

  /** Consumers running for a scenario: {@code instances} of them where the kit starts them. */
  void start(int instances);

  /**
   * After a simulated crash: every consumer is stopped without committing further offsets, then
   * fresh ones join the group and read from its last committed offsets.
   */
  void restart();

  /** How many consumers of the group the race scenario can count on (threads or instances). */
  int raceConsumers();

  /**
   * How often the consumers reading {@code topic} have seen their handler suspend the batch
   * transaction so far ({@code ConsumerStats} counts it; plain JDBC transactions cannot tell).
   */
  long transactionSuspensions(String topic);

  /** The scenario is over. */
  void stop();

  /**
   * Failures of the consumers' loops other than a simulated crash since the last call, for the
   * scenario's report.
   */
  List<Throwable> drainLoopFailures();

  @Override
  void close();
}
