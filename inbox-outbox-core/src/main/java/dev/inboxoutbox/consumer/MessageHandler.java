package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.Outcome;

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
}
