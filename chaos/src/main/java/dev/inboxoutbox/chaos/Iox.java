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
      BenchCommand.class
    })
public final class Iox implements Runnable {

  /**
   * The repository with the built services: the option, else IOX_REPO_ROOT, else the current
   * directory.
   */
  static Path repoRoot(Path option) {
    return option != null ? option : Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "."));
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Iox()).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
