package dev.inboxoutbox.test;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.RetryLaterException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kit's observation and fault points in the consumer's batches. Only records the kit sent (they
 * carry {@link #TEST_KEY_HEADER}) are observed: other consumers of a Spring application, and
 * records of other tests, pass untouched.
 */
final class ScenarioHooks implements BatchProcessor.Hooks {

  private static final Logger log = LoggerFactory.getLogger(ScenarioHooks.class);

  /** Carries the scenario's key on every record the kit sends, whatever key extractor is set. */
  static final String TEST_KEY_HEADER = "iox-test-key";

  enum Fault {
    NONE,
    FAIL_AFTER_WRITES,
    CRASH_BEFORE_COMMIT,
    CRASH_AFTER_COMMIT,
    HOLD_FIRST_TRANSACTION
  }

  private volatile Fault fault = Fault.NONE;
  private volatile Duration hold = Duration.ZERO;
  private volatile boolean dead;
  private final AtomicInteger crashes = new AtomicInteger();
  private final Set<String> failedKeys = ConcurrentHashMap.newKeySet();
  private final Set<String> heldKeys = ConcurrentHashMap.newKeySet();
  private final Set<String> handled = ConcurrentHashMap.newKeySet();

  /** The consumer threads whose committed batches held a copy of a key, per key. */
  private final Map<String, Set<Long>> consumersPerKey = new ConcurrentHashMap<>();

  /** Positions ({@code topic-partition@offset}) of the kit's records whose batch committed. */
  private final Set<String> committed = ConcurrentHashMap.newKeySet();

  void arm(Fault fault, Duration hold) {
    failedKeys.clear();
    heldKeys.clear();
    handled.clear();
    consumersPerKey.clear();
    crashes.set(0);
    dead = false;
    this.hold = hold;
    this.fault = fault;
  }

  void disarm() {
    fault = Fault.NONE;
    dead = false;
  }

  /** The consumers were restarted: the new "process" is alive. */
  void revive() {
    dead = false;
  }

  int crashes() {
    return crashes.get();
  }

  Set<String> failedKeys() {
    return Set.copyOf(failedKeys);
  }

  /** Kit keys whose handler returned at least once, in any transaction (committed or not). */
  Set<String> handledKeys() {
    return Set.copyOf(handled);
  }

  /**
   * Kit keys whose copies were committed by two consumer threads or more since the scenario was
   * armed: only their copies could meet at the claim while one was uncommitted. Copies taken by one
   * consumer are taken one after another, however the batches fall.
   */
  Set<String> keysTakenByTwoConsumers() {
    Set<String> keys = new HashSet<>();
    consumersPerKey.forEach(
        (key, consumers) -> {
          if (consumers.size() >= 2) {
            keys.add(key);
          }
        });
    return keys;
  }

  boolean committed(String position) {
    return committed.contains(position);
  }

  static String position(String topic, int partition, long offset) {
    return topic + "-" + partition + "@" + offset;
  }

  @Override
  public void handlerReturned(IncomingMessage message) {
    String key = message.header(TEST_KEY_HEADER).orElse(null);
    if (key == null) {
      return;
    }
    handled.add(key);
    if (dead) {
      throw new SimulatedCrash("(the process is already dead)");
    }
    switch (fault) {
      case FAIL_AFTER_WRITES -> {
        if (failedKeys.add(key)) {
          // Transient on purpose: the batch rolls back and comes back whole, as after a lost
          // connection, instead of being retried record by record into dead letters.
          throw new RetryLaterException(
              "iox test kit: failure after the handler's writes for key " + key, null);
        }
      }
      case CRASH_BEFORE_COMMIT -> crash("after the handler's writes, before the database commit");
      case HOLD_FIRST_TRANSACTION -> {
        if (heldKeys.add(key)) {
          holdTransactionOpen();
        }
      }
      default -> {
        // nothing injected
      }
    }
  }

  @Override
  public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
    boolean ours = false;
    for (ConsumerRecord<String, byte[]> record : records) {
      if (record.headers().lastHeader(TEST_KEY_HEADER) != null) {
        ours = true;
        break;
      }
    }
    if (!ours) {
      return;
    }
    if (dead) {
      throw new SimulatedCrash("(the process is already dead)");
    }
    if (fault == Fault.CRASH_AFTER_COMMIT) {
      crash("after the database commit, before the offset commit");
    }
    long consumer = Thread.currentThread().getId();
    for (ConsumerRecord<String, byte[]> record : records) {
      Header key = record.headers().lastHeader(TEST_KEY_HEADER);
      if (key != null) {
        committed.add(position(record.topic(), record.partition(), record.offset()));
        consumersPerKey
            .computeIfAbsent(
                new String(key.value(), StandardCharsets.UTF_8), k -> ConcurrentHashMap.newKeySet())
            .add(consumer);
      }
    }
  }

  /** Crashes once per scenario; until the consumers are restarted, every kit batch dies too. */
  private void crash(String where) {
    if (crashes.get() == 0) {
      crashes.incrementAndGet();
      dead = true;
      log.info(
          "iox test kit: simulated crash {} (planned): the consumers stop without committing"
              + " offsets and are restarted",
          where);
      throw new SimulatedCrash(where);
    }
  }

  /**
   * Keeps the first transaction of a key open for a moment, so that a copy of the key on another
   * partition reaches its claim while this one has not committed: the race the inbox must settle.
   */
  private void holdTransactionOpen() {
    try {
      // A deliberate pause inside an open transaction: the race needs the overlap.
      Thread.sleep(hold.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
