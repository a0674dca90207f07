package dev.inboxoutbox.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Samples Debezium's MilliSecondsBehindSource (commit timestamp to the connector reading the change
 * from the slot, before the engine's queue) every 5 ms, reading the streaming metrics bean the
 * embedded engine registers.
 */
final class ConnectorLag implements AutoCloseable {
  private final List<Long> samples = Collections.synchronizedList(new ArrayList<>());
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread = new Thread(this::sample, "relay-bench-lag");

  ConnectorLag() {
    thread.setDaemon(true);
    thread.start();
  }

  private void sample() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      Set<ObjectName> names =
          server.queryNames(
              new ObjectName("debezium.postgres:type=connector-metrics,context=streaming,*"), null);
      if (names.isEmpty()) {
        return;
      }
      ObjectName streaming = names.iterator().next();
      long last = Long.MIN_VALUE;
      while (running.get()) {
        long behind =
            ((Number) server.getAttribute(streaming, "MilliSecondsBehindSource")).longValue();
        if (behind >= 0 && behind != last) {
          samples.add(behind);
          last = behind;
        }
        Thread.sleep(5);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (JMException e) {
      throw new IllegalStateException("reading Debezium's streaming metrics failed", e);
    }
  }

  List<Long> samples() {
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted;
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(1_000);
  }
}
