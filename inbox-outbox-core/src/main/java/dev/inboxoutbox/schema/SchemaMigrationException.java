package dev.inboxoutbox.schema;

/** A schema migration could not run; the message says which step failed. */
public class SchemaMigrationException extends RuntimeException {

  SchemaMigrationException(String message, Throwable cause) {
    super(message, cause);
  }

  SchemaMigrationException(String message) {
    super(message);
  }
}
