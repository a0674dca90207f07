package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.Outcome;
import java.sql.Connection;
import java.util.List;

/**
 * Applies one message whose key this transaction has just claimed. Runs inside the batch's database
 * transaction: write your state with {@link HandlerContext#connection()} (or anything that joins
 * the {@link TransactionRunner}'s transaction) and your side effects with {@link
 * HandlerContext#emit}; both commit together with the claim, or not at all.
 *
 * <p>Return {@link Outcome#success} or {@link Outcome#rejected} (a business rejection, stored and
 * replayed to duplicates). Throw {@link PoisonMessageException} for a record that can never
 * succeed; any other exception rolls the batch back and the record is retried alone (then
 * dead-lettered as {@link DeadLetterReason#HANDLER_ERROR} if it fails alone and the database is
 * fine). Do not commit, roll back or close the connection.
 */
@FunctionalInterface
public interface MessageHandler {

  Outcome handle(IncomingMessage message, HandlerContext context) throws Exception;

  /**
   * Runs once in each batch's transaction, after its keys are claimed and before the first {@link
   * #handle}, with the messages about to be applied, in order (duplicates and conflicts left out;
   * never called with none). Lock here, in one global order, the rows these messages will update
   * that other batches update too ({@code SELECT ... ORDER BY id FOR UPDATE}): a batch holds every
   * lock it takes until it commits, so two batches running side by side that take the same rows in
   * different orders deadlock, and PostgreSQL rolls one back after {@code deadlock_timeout}. Skip
   * what cannot be parsed: {@link #handle} rejects it.
   *
   * <p>A handler may also write the state of all these messages here, in one multi-row statement
   * (or one JDBC batch), instead of one statement per message in {@link #handle}: it commits with
   * the claim, and a key absorbed as a duplicate is never in {@code messages}. {@link #handle} then
   * only returns each message's outcome, decided the same way as here.
   *
   * <p>An exception here fails the batch like one from {@link #handle}: the records are tried one
   * per transaction, and this runs again with each alone. Default: nothing.
   */
  default void beforeBatch(List<IncomingMessage> messages, Connection connection)
      throws Exception {}
}
