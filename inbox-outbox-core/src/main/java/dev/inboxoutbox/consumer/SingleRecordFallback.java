package dev.inboxoutbox.consumer;

import java.util.ArrayList;
import java.util.List;

/**
 * After a batch's transaction failed: each record again in a transaction of its own, so one bad
 * record never blocks the others. A record that fails alone becomes a dead letter.
 */
final class SingleRecordFallback {

  private final ClaimAndApply unitOfWork;

  SingleRecordFallback(ClaimAndApply unitOfWork) {
    this.unitOfWork = unitOfWork;
  }

  /** Returns the dead letters: conflicts, and the records that failed alone. */
  List<DeadLetters.Entry> applyOneByOne(List<ValidatedRecord> records)
      throws DatabaseUnavailableException {
    List<DeadLetters.Entry> rejected = new ArrayList<>();
    for (ValidatedRecord one : records) {
      try {
        rejected.addAll(unitOfWork.inOneTransaction(List.of(one)));
      } catch (RecordFailedException alone) {
        rejected.add(
            new DeadLetters.Entry(
                one.record(),
                alone.reason(),
                alone.getMessage(),
                one.message().idempotencyKey().value(),
                alone.getCause()));
      }
    }
    return rejected;
  }
}
