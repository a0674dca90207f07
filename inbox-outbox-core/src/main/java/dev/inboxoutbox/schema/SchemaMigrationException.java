package dev.inboxoutbox.schema;

/** A schema migration could not run; the message says which step failed. */
class SchemaMigrationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SchemaMigrationException(String message, Throwable cause) {
    super(message, cause);
  }

  SchemaMigrationException(String message) {
    super(message);
  }
}
