package dev.inboxoutbox.devstack;

import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * The first stop signal as an interrupt of one thread, which that thread holds off while it starts
 * a server: a start interrupted half-way fails in a library's class initialisation (Log4j's first
 * logger) or is swallowed and retried (the in-JVM broker's test kit), and the run would go on as if
 * no one had asked it to stop.
 */
public final class StopRequest implements BooleanSupplier {

  private final Thread thread;
  private boolean requested; // guarded by this
  private boolean holdingOff; // guarded by this

  StopRequest(Thread thread) {
    this.thread = thread;
  }

  /** One no signal ever makes: for a run that a test starts and ends. */
  public static StopRequest never() {
    return new StopRequest(Thread.currentThread());
  }

  synchronized void request() {
    requested = true;
    if (!holdingOff) {
      thread.interrupt();
    }
  }

  /** Whether a stop was asked for. */
  @Override
  public synchronized boolean getAsBoolean() {
    return requested;
  }

  /**
   * Starts something with the interrupt held off. A stop asked for meanwhile closes it again and
   * ends in {@link InterruptedException}, as an interrupt would have.
   */
  public <T extends AutoCloseable> T start(Callable<T> starting) throws Exception {
    synchronized (this) {
      holdingOff = true;
    }
    T started;
    try {
      started = starting.call();
    } finally {
      synchronized (this) {
        holdingOff = false;
      }
    }
    if (getAsBoolean()) {
      // A request just after the hold ended interrupted this thread too: the close must not see it.
      Thread.interrupted();
      started.close();
      throw new InterruptedException("stopped while starting");
    }
    return started;
  }
}
