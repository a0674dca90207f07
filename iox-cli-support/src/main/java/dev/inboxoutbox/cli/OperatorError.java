package dev.inboxoutbox.cli;

import picocli.CommandLine;

/**
 * A failure the operator fixes outside iox (a database or broker that cannot be reached, a refused
 * password, a missing topic): printed as one line naming what was tried, exit code {@link
 * #EXIT_CODE}.
 */
public class OperatorError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Exit code of a command that could not reach or use what it was pointed at. */
  public static final int EXIT_CODE = 2;

  public OperatorError(String message, Throwable cause) {
    super(message, cause);
  }

  public OperatorError(String message) {
    super(message);
  }

  /**
   * Prints an {@link OperatorError} as one line and exits with {@link #EXIT_CODE}; rethrows the
   * rest.
   */
  public static CommandLine.IExecutionExceptionHandler handler() {
    return (error, command, parsed) -> {
      if (error instanceof OperatorError) {
        command
            .getErr()
            .println(command.getCommandSpec().qualifiedName() + ": " + error.getMessage());
        return EXIT_CODE;
      }
      throw error;
    };
  }
}
