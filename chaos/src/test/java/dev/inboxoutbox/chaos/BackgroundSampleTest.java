package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BackgroundSampleTest {

  private static final Instant START = Instant.parse("2026-11-29T12:00:00Z");

  /** A sample that hangs (a service that does not answer) holds back nothing that ticks. */
  @Test
  void aSlowSampleDoesNotHoldBackTheCaller() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    try (BackgroundSample sampling =
        new BackgroundSample(
            () -> {
              started.incrementAndGet();
              await(answer);
            },
            Duration.ofSeconds(1))) {
      long before = System.nanoTime();
      sampling.tick(START);
      sampling.tick(START.plusSeconds(5));
      assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(1));
      answer.countDown();
    }
    assertThat(started).as("never two samples at once").hasValue(1);
  }

  @Test
  void samplesOncePerPeriod() throws Exception {
    AtomicInteger taken = new AtomicInteger();
    try (BackgroundSample sampling =
        new BackgroundSample(taken::incrementAndGet, Duration.ofSeconds(1))) {
      for (int millis = 0; millis <= 2_500; millis += 100) {
        sampling.tick(START.plusMillis(millis));
        // Time for the sample just started to end, so that a due tick may start the next.
        Thread.sleep(5);
      }
    }
    assertThat(taken).hasValue(3);
  }

  @Test
  void aFailedSampleFailsTheNextTick() throws Exception {
    BackgroundSample sampling =
        new BackgroundSample(
            () -> {
              throw new IllegalStateException("no orders database");
            },
            Duration.ofSeconds(1));
    sampling.tick(START);
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 100; i++) {
                sampling.tick(START.plusSeconds(2));
                Thread.sleep(10);
              }
            })
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("no orders database");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
