package dev.inboxoutbox.test;

import java.util.function.Function;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions over an {@link ExactlyOnceKit}: each runs one scenario against the consumer
 * under test with keys of its own, and fails with an {@link AssertionError} naming every key whose
 * effect count is not exactly 1 (and any other breach the scenario checks).
 *
 * <pre>{@code
 * assertThat(kit)
 *     .survivesDuplicateDelivery()
 *     .survivesFailureAfterWrites()
 *     .survivesCrashBeforeCommit()
 *     .survivesCrashAfterCommit()
 *     .survivesConcurrentDuplicates()
 *     .refusesConflictingPayload();   // or .isExactlyOnce() for all six
 * }</pre>
 */
public final class ExactlyOnceAssert extends AbstractAssert<ExactlyOnceAssert, ExactlyOnceKit> {

  private ExactlyOnceAssert(ExactlyOnceKit kit) {
    super(kit, ExactlyOnceAssert.class);
  }

  public static ExactlyOnceAssert assertThat(ExactlyOnceKit kit) {
    return new ExactlyOnceAssert(kit);
  }

  /** Every record delivered three times (twice back to back, once later): one effect per key. */
  public ExactlyOnceAssert survivesDuplicateDelivery() {
    return check(ExactlyOnceKit::duplicateDelivery);
  }

  /**
   * Each key's first transaction fails after the handler's writes and rolls back; the redelivery
   * applies it: one effect per key. A write that escapes the transaction (a separate connection,
   * {@code REQUIRES_NEW}, a call to another system) shows as two.
   */
  public ExactlyOnceAssert survivesFailureAfterWrites() {
    return check(ExactlyOnceKit::failureAfterWrites);
  }

  /**
   * The consumer dies inside the transaction after the handler returned, and fresh consumers read
   * the batch again: one effect per key.
   */
  public ExactlyOnceAssert survivesCrashBeforeCommit() {
    return check(ExactlyOnceKit::crashBeforeCommit);
  }

  /**
   * The consumer dies after the database commit and before the offset commit, and fresh consumers
   * read the batch again: one effect per key.
   */
  public ExactlyOnceAssert survivesCrashAfterCommit() {
    return check(ExactlyOnceKit::crashAfterCommit);
  }

  /**
   * Copies of each key on several partitions, consumed by the group's consumers at once (two for a
   * plain consumer, the listener concurrency in Spring): one effect per key.
   */
  public ExactlyOnceAssert survivesConcurrentDuplicates() {
    return check(ExactlyOnceKit::concurrentDuplicates);
  }

  /**
   * Each key applied, then sent with another payload: still one effect, and a {@code CONFLICT} dead
   * letter for the second record.
   */
  public ExactlyOnceAssert refusesConflictingPayload() {
    return check(ExactlyOnceKit::conflictingPayload);
  }

  /** Every scenario above, one after another. */
  public ExactlyOnceAssert isExactlyOnce() {
    return survivesDuplicateDelivery()
        .survivesFailureAfterWrites()
        .survivesCrashBeforeCommit()
        .survivesCrashAfterCommit()
        .survivesConcurrentDuplicates()
        .refusesConflictingPayload();
  }

  private ExactlyOnceAssert check(Function<ExactlyOnceKit, ScenarioReport> scenario) {
    isNotNull();
    ScenarioReport report = scenario.apply(actual);
    if (!report.exactlyOnce()) {
      failWithMessage("%s", "Expected exactly one effect per key, but " + report.describe());
    }
    return this;
  }
}
