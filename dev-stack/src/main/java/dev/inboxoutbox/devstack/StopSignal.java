package dev.inboxoutbox.devstack;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * Ctrl-C, SIGTERM and SIGHUP as a request to stop that the program serves itself, in order, before
 * the JVM exits. Left to the JVM, each signal starts every shutdown hook at once: Kafka's test kit
 * deletes the broker's log directory while the broker still writes to it, and the hook that kills
 * child processes kills the {@code pg_ctl stop} of embedded PostgreSQL's own hook.
 */
public final class StopSignal {

  private static final List<String> STOPPING_SIGNALS = List.of("INT", "TERM", "HUP");

  private StopSignal() {}

  /**
   * From now on the first of those signals interrupts {@code thread}, whose try-with-resources and
   * finally blocks then stop what it started; a second one exits at once, through the shutdown
   * hooks, for someone whose stop hangs. The result tells an interrupt by a signal from any other
   * failure, and holds the interrupt off while the thread starts a server ({@link
   * StopRequest#start}).
   */
  public static StopRequest interruptOnFirst(Thread thread) {
    StopRequest stop = new StopRequest(thread);
    onFirst(stop::request);
    return stop;
  }

  /** Waits for the first of those signals; a second one exits at once. */
  public static void await() throws InterruptedException {
    CountDownLatch received = new CountDownLatch(1);
    onFirst(received::countDown);
    received.await();
  }

  private static void onFirst(Runnable stop) {
    AtomicBoolean received = new AtomicBoolean();
    for (String name : STOPPING_SIGNALS) {
      try {
        Signal.handle(
            new Signal(name),
            signal -> {
              if (received.getAndSet(true)) {
                new Thread(() -> System.exit(128 + signal.getNumber()), "stop-now").start();
              } else {
                stop.run();
              }
            });
      } catch (IllegalArgumentException notHandledHere) {
        // A signal the JVM reserves (as with -Xrs): the shutdown hooks remain its stop.
      }
    }
  }
}
