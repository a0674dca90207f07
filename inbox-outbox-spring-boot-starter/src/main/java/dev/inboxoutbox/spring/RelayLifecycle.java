package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import org.springframework.context.SmartLifecycle;

/** Starts the relay with the application and closes it (offsets stored, leadership released) on shutdown. */
final class RelayLifecycle implements SmartLifecycle {

  private final OutboxRelay relay;
  private volatile boolean running;

  RelayLifecycle(OutboxRelay relay) {
    this.relay = relay;
  }

  @Override
  public void start() {
    relay.start();
    running = true;
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
}
