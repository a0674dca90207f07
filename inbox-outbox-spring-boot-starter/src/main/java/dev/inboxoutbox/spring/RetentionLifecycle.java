package dev.inboxoutbox.spring;

import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.util.function.Consumer;
import org.springframework.context.SmartLifecycle;

/** Schedules retention runs with the application and stops them on shutdown. */
final class RetentionLifecycle implements SmartLifecycle {

  private final RetentionCleaner cleaner;
  private final Duration interval;
  private final Consumer<RetentionCleaner.Report> listener;
  private volatile RetentionCleaner.Schedule schedule;

  RetentionLifecycle(
      RetentionCleaner cleaner, Duration interval, Consumer<RetentionCleaner.Report> listener) {
    this.cleaner = cleaner;
    this.interval = interval;
    this.listener = listener;
  }

  @Override
  public synchronized void start() {
    if (schedule == null) {
      schedule = cleaner.schedule(interval, listener);
    }
  }

  @Override
  public synchronized void stop() {
    if (schedule != null) {
      schedule.close();
      schedule = null;
    }
  }

  @Override
  public boolean isRunning() {
    return schedule != null;
  }
}
