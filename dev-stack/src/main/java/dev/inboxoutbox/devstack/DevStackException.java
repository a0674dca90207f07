package dev.inboxoutbox.devstack;

/** A component of the dev stack could not be started, reached or cleaned up. */
public class DevStackException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DevStackException(String message, Throwable cause) {
    super(message, cause);
  }

  public DevStackException(String message) {
    super(message);
  }
}
