package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.ClaimRequest;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A polled record after validation: either ready to claim ({@code message} and {@code request}) or
 * refused before its claim ({@code deadLetter}).
 */
record ValidatedRecord(
    ConsumerRecord<String, byte[]> record,
    IncomingMessage message,
    ClaimRequest request,
    DeadLetters.Entry deadLetter) {

  static ValidatedRecord valid(
      ConsumerRecord<String, byte[]> record, IncomingMessage message, ClaimRequest request) {
    return new ValidatedRecord(record, message, request, null);
  }

  /** A record refused before its claim; {@code cause} is the exception that said why, if any. */
  static ValidatedRecord rejected(
      ConsumerRecord<String, byte[]> record,
      DeadLetterReason reason,
      String detail,
      String key,
      Throwable cause) {
    return new ValidatedRecord(
        record, null, null, new DeadLetters.Entry(record, reason, detail, key, cause));
  }

  boolean isRejected() {
    return deadLetter != null;
  }
}
