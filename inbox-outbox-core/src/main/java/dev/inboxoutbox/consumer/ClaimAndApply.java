package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.Outbox;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One unit of work: claims every key of the given records in one statement, runs the handler for
 * the new ones, records their outcomes and commits, all in one database transaction. Either all of
 * it commits or none of it. Keys are claimed presuming success, so only outcomes other than a bare
 * success cost a second write.
 */
final class ClaimAndApply {

  // Logged under the public type, whose category applications configure.
  private static final Logger log = LoggerFactory.getLogger(BatchProcessor.class);

  private final TransactionRunner transactions;
  private final Inbox inbox;
  private final Outbox outbox;
  private final ConsumerSettings settings;
  private final MessageHandler handler;
  private final ConsumerStats stats;
  private final BatchProcessor.Hooks hooks;
  private final RecordTracing tracing;

  ClaimAndApply(
      TransactionRunner transactions,
      Inbox inbox,
      Outbox outbox,
      ConsumerSettings settings,
      MessageHandler handler,
      ConsumerStats stats,
      BatchProcessor.Hooks hooks,
      RecordTracing tracing) {
    this.tracing = tracing;
    this.transactions = transactions;
    this.inbox = inbox;
    this.outbox = outbox;
    this.settings = settings;
    this.handler = handler;
    this.stats = stats;
    this.hooks = hooks;
  }

  /**
   * Returns the dead letters the transaction produced (conflicts).
   *
   * @throws RecordFailedException when a record failed: nothing was committed
   * @throws DatabaseUnavailableException when the database failed in a way a retry may get past
   */
  List<DeadLetters.Entry> inOneTransaction(List<ValidatedRecord> batch)
      throws RecordFailedException, DatabaseUnavailableException {
    if (batch.isEmpty()) {
      return List.of();
    }
    List<DeadLetters.Entry> conflicts = new ArrayList<>();
    List<Applied> applied = new ArrayList<>();
    Attempt attempt = new Attempt(stats);
    try {
      transactions.inTransaction(
          connection -> {
            try {
              transactions.onSuspend(() -> suspendedDuring(attempt.inHandler));
              attempt.next(ConsumerStats.Stage.CLAIM);
              List<ClaimResult> claims = claim(connection, batch);
              attempt.next(ConsumerStats.Stage.HANDLER);
              beforeBatch(connection, batch, claims);
              List<Inbox.Completion> completions = new ArrayList<>();
              for (int i = 0; i < batch.size(); i++) {
                ValidatedRecord validated = batch.get(i);
                RecordTracing.RecordObservation observed =
                    tracing.start(validated.record(), validated.message().idempotencyKey().value());
                try {
                  apply(
                      connection,
                      validated,
                      claims.get(i),
                      observed,
                      attempt,
                      applied,
                      conflicts,
                      completions);
                } catch (Throwable e) {
                  observed.failed(e);
                  throw e;
                } finally {
                  observed.stop();
                }
              }
              attempt.next(ConsumerStats.Stage.CORRECTION);
              inbox.correctPresumedSuccesses(connection, completions);
              return null;
            } finally {
              attempt.next(null);
            }
          });
    } catch (RecordFailedException e) {
      throw e;
    } catch (Exception e) {
      if (Transience.isTransient(e)) {
        throw new DatabaseUnavailableException(e);
      }
      throw new RecordFailedException(
          DeadLetterReason.HANDLER_ERROR, BatchProcessor.describe(e), e);
    } finally {
      attempt.transactionEnded();
    }
    for (Applied done : applied) {
      if (done.duplicate) {
        stats.duplicate();
      } else {
        stats.applied(done.outcome.isRejection(), done.nanos, done.emitted);
      }
    }
    return conflicts;
  }

  /** One record of the batch, as its claim decided: absorbed, dead-lettered or applied. */
  private void apply(
      Connection connection,
      ValidatedRecord validated,
      ClaimResult claim,
      RecordTracing.RecordObservation observed,
      Attempt attempt,
      List<Applied> applied,
      List<DeadLetters.Entry> conflicts,
      List<Inbox.Completion> completions)
      throws Exception {
    if (claim instanceof ClaimResult.Duplicate) {
      observed.decided(RecordTracing.Decision.DUPLICATE);
      applied.add(new Applied(null, 0, 0, true));
    } else if (claim instanceof ClaimResult.Conflict conflict) {
      observed.decided(RecordTracing.Decision.CONFLICT);
      conflicts.add(conflictOf(validated, conflict));
    } else {
      observed.decided(RecordTracing.Decision.NEW);
      HandlerContext context =
          new HandlerContext(connection, outbox, validated.message(), tracing != RecordTracing.OFF);
      long started = System.nanoTime();
      attempt.inHandler = validated.message();
      Outcome outcome = observed.inScope(() -> runHandler(validated, context));
      attempt.inHandler = null;
      observed.outcome(outcome.isRejection());
      applied.add(new Applied(outcome, System.nanoTime() - started, context.emitted(), false));
      if (claim instanceof ClaimResult.New fresh) {
        completions.add(Inbox.Completion.of(fresh, outcome));
      }
    }
  }

  private List<ClaimResult> claim(Connection connection, List<ValidatedRecord> batch) {
    List<ClaimRequest> requests = new ArrayList<>(batch.size());
    batch.forEach(validated -> requests.add(validated.request()));
    // Every outcome is recorded before this transaction commits, so a key is written once, as a
    // success, and only the other outcomes touch their row again.
    return inbox.claimAllPresumingSuccess(connection, requests);
  }

  private void beforeBatch(
      Connection connection, List<ValidatedRecord> batch, List<ClaimResult> claims)
      throws Exception {
    List<IncomingMessage> toApply = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      if (claims.get(i) instanceof ClaimResult.New) {
        toApply.add(batch.get(i).message());
      }
    }
    if (toApply.isEmpty()) {
      return;
    }
    try {
      handler.beforeBatch(List.copyOf(toApply), connection);
    } catch (PoisonMessageException poison) {
      throw new RecordFailedException(poison.reason(), poison.getMessage(), poison);
    }
  }

  private Outcome runHandler(ValidatedRecord validated, HandlerContext context) throws Exception {
    try {
      Outcome outcome = handler.handle(validated.message(), context);
      if (outcome == null) {
        throw new IllegalStateException("handler returned no outcome");
      }
      hooks.handlerReturned(validated.message());
      return outcome;
    } catch (PoisonMessageException poison) {
      throw new RecordFailedException(poison.reason(), poison.getMessage(), poison);
    }
  }

  private static DeadLetters.Entry conflictOf(
      ValidatedRecord validated, ClaimResult.Conflict conflict) {
    return new DeadLetters.Entry(
        validated.record(),
        DeadLetterReason.CONFLICT,
        "idempotency key already used for another payload (stored request hash "
            + conflict.original().requestHash()
            + ", this one "
            + validated.request().requestHash()
            + ")",
        validated.message().idempotencyKey().value(),
        null);
  }

  /**
   * An inner transaction (REQUIRES_NEW, NOT_SUPPORTED) suspended the batch's: what the handler
   * writes until it resumes commits on its own, so a rollback of the batch no longer undoes it.
   */
  private void suspendedDuring(IncomingMessage message) {
    stats.transactionSuspended();
    if (message == null) {
      log.warn("{}: the batch transaction was suspended outside a handler", settings.operation());
      return;
    }
    log.warn(
        "{}: the handler suspended the batch transaction while applying {}-{}@{} (key {}); what it"
            + " writes in the inner transaction (REQUIRES_NEW, NOT_SUPPORTED) commits on its own,"
            + " outside the exactly-once guarantee",
        settings.operation(),
        message.topic(),
        message.partition(),
        message.offset(),
        message.idempotencyKey().value());
  }

  private record Applied(Outcome outcome, long nanos, int emitted, boolean duplicate) {}

  /**
   * One transaction's clock and the message its handler is applying. The stages inside the work
   * (claim, handler, correction) are timed as they run, also when one throws; what the transaction
   * took besides them (connection, commit or rollback, release) is the {@link
   * ConsumerStats.Stage#COMMIT} stage.
   */
  private static final class Attempt {
    private final ConsumerStats stats;
    private final long started = System.nanoTime();
    private ConsumerStats.Stage running;
    private long runningSince;
    private long inside;
    volatile IncomingMessage inHandler;

    Attempt(ConsumerStats stats) {
      this.stats = stats;
    }

    /** Ends the running stage, if any, and starts {@code stage} (none: the work is done). */
    void next(ConsumerStats.Stage stage) {
      long now = System.nanoTime();
      if (running != null) {
        inside += stats.stage(running, now - runningSince);
      }
      running = stage;
      runningSince = now;
    }

    void transactionEnded() {
      stats.stage(ConsumerStats.Stage.COMMIT, System.nanoTime() - started - inside);
    }
  }
}
