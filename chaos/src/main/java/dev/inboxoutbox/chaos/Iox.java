package dev.inboxoutbox.chaos;

import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code iox} command line. */
@Command(
    name = "iox",
    mixinStandardHelpOptions = true,
    version = "iox 0.1.0",
    description = "inbox-outbox: chaos runs, load, inspection and retention.",
    subcommands = {
      ChaosCommand.class,
      PrepareCommand.class,
      ProduceCommand.class,
      InspectCommand.class,
      RetentionCommand.class,
      ProviderCommand.class,
      BenchCommand.class,
      DltCommand.class
    })
public final class Iox implements Runnable {

  /**
   * The repository with the built services: the option, else IOX_REPO_ROOT, else the current
   * directory.
   */
  static Path repoRoot(Path option) {
    return option != null ? option : Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "."));
  }

  /** Exit code of a command that could not reach or use what it was pointed at. */
  static final int UNREACHABLE = 2;

  /**
   * A failure the operator fixes outside iox (a database or broker that cannot be reached, a
   * refused password, a missing topic): printed as one line naming what was tried, exit code 2.
   */
  static class OperatorError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OperatorError(String message, Throwable cause) {
      super(message, cause);
    }

    OperatorError(String message) {
      super(message);
    }
  }

  /** The command line with iox's handling of {@link OperatorError}. */
  static CommandLine commandLine() {
    return new CommandLine(new Iox())
        .setExecutionExceptionHandler(
            (error, command, parsed) -> {
              if (error instanceof OperatorError) {
                command
                    .getErr()
                    .println(command.getCommandSpec().qualifiedName() + ": " + error.getMessage());
                return UNREACHABLE;
              }
              throw error;
            });
  }

  public static void main(String[] args) {
    ChildProcesses.stopOnExit();
    System.exit(commandLine().execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
