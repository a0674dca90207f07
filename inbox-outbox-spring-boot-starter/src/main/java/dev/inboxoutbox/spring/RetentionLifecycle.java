package dev.inboxoutbox.spring;

import dev.inboxoutbox.retention.RetentionScheduler;
import org.springframework.context.SmartLifecycle;

/** Starts the retention schedule with the application and stops it on shutdown. */
final class RetentionLifecycle implements SmartLifecycle {

  private final RetentionScheduler scheduler;
  private volatile boolean running;

  RetentionLifecycle(RetentionScheduler scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void start() {
    scheduler.start();
    running = true;
  }

  @Override
  public void stop() {
    scheduler.close();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
