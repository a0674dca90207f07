package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the relay before the web server and the consumers and closes it after them (offsets
 * stored, leadership released). Start-up waits, bounded, until the replication slot exists (created
 * by this instance or by the leader): only outbox rows written after that are relayed, so consumers
 * must not write any before.
 */
final class RelayLifecycle implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(RelayLifecycle.class);
  private static final Duration SLOT_WAIT = Duration.ofSeconds(60);

  private final OutboxRelay relay;
  private volatile boolean running;

  RelayLifecycle(OutboxRelay relay) {
    this.relay = relay;
  }

  @Override
  public void start() {
    relay.start();
    running = true;
    Instant deadline = Instant.now().plus(SLOT_WAIT);
    while (!slotExists()) {
      if (Instant.now().isAfter(deadline)) {
        log.warn(
            "the relay's replication slot does not exist after {} (relay {}); outbox rows written"
                + " before it exists are not relayed",
            SLOT_WAIT,
            relay.status());
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private boolean slotExists() {
    try {
      return relay.lag().slotLagBytes().isPresent();
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void stop() {
    relay.close();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * Before the web server (Spring Boot starts it in phase {@code DEFAULT_PHASE - 2048}) and the
   * listener containers: the slot exists before the first request or record can write an outbox
   * row, and the relay stops after both.
   */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 4096;
  }
}
