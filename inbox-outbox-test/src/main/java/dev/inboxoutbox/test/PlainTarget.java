package dev.inboxoutbox.test;

import dev.inboxoutbox.consumer.IdempotentConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Consumers built by the application's factory, each running its poll loop on a thread of the kit.
 * A simulated crash ends a loop with the {@link SimulatedCrash} error: the loop's Kafka consumer is
 * closed with nothing more committed, as in a process that died.
 */
final class PlainTarget implements Target {

  private final ExactlyOnceKit.ConsumerFactory factory;
  private final ScenarioHooks hooks = new ScenarioHooks();
  private final List<Running> running = new ArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private int generation;

  /** Suspensions counted by consumers already closed. */
  private long closedSuspensions;

  private record Running(IdempotentConsumer consumer, Thread thread) {}

  PlainTarget(ExactlyOnceKit.ConsumerFactory factory) {
    this.factory = factory;
  }

  @Override
  public ScenarioHooks hooks() {
    return hooks;
  }

  @Override
  public String bootstrapServers() {
    return null;
  }

  @Override
  public synchronized void start(int instances) {
    generation++;
    for (int i = 0; i < instances; i++) {
      IdempotentConsumer consumer;
      try {
        consumer = factory.create(hooks);
      } catch (Exception e) {
        throw new IllegalStateException("the consumer factory failed", e);
      }
      if (consumer == null) {
        throw new IllegalStateException("the consumer factory returned no consumer");
      }
      Thread thread =
          new Thread(() -> runLoop(consumer), "iox-test-consumer-" + generation + "-" + i);
      thread.setDaemon(true);
      running.add(new Running(consumer, thread));
      thread.start();
    }
  }

  private void runLoop(IdempotentConsumer consumer) {
    try {
      consumer.run();
    } catch (SimulatedCrash expected) {
      // The "process" died at the crash point; the kit restarts the consumers.
    } catch (Throwable unexpected) {
      failures.add(unexpected);
    }
  }

  /** The kit starts two consumers from the factory for the race. */
  @Override
  public int raceConsumers() {
    return 2;
  }

  @Override
  public synchronized void restart() {
    int instances = running.size();
    stop();
    hooks.revive();
    start(instances);
  }

  /** The factory's consumers read one topic each: the kit's. */
  @Override
  public synchronized long transactionSuspensions(String topic) {
    long total = closedSuspensions;
    for (Running each : running) {
      total += each.consumer().stats().snapshot().transactionSuspensions();
    }
    return total;
  }

  @Override
  public synchronized void stop() {
    for (Running each : running) {
      each.consumer().close();
      closedSuspensions += each.consumer().stats().snapshot().transactionSuspensions();
    }
    for (Running each : running) {
      try {
        each.thread().join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while stopping the consumers", e);
      }
    }
    running.clear();
  }

  @Override
  public synchronized List<Throwable> drainLoopFailures() {
    List<Throwable> drained = List.copyOf(failures);
    failures.removeAll(drained);
    return drained;
  }

  @Override
  public void close() {
    stop();
  }
}
