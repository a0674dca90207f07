package dev.inboxoutbox.iox;

import dev.inboxoutbox.benchmarks.BenchCommand;
import dev.inboxoutbox.chaos.ChaosCommand;
import dev.inboxoutbox.chaos.PrepareCommand;
import dev.inboxoutbox.chaos.UpCommand;
import dev.inboxoutbox.cli.OperatorError;
import dev.inboxoutbox.devstack.ChildProcesses;
import dev.inboxoutbox.orders.load.ProduceCommand;
import dev.inboxoutbox.provider.ProviderCommand;
import dev.inboxoutbox.tools.DltCommand;
import dev.inboxoutbox.tools.InboxUpgradeCommand;
import dev.inboxoutbox.tools.InspectCommand;
import dev.inboxoutbox.tools.RetentionCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code iox} command line: wires the commands of the chaos, benchmark and tool modules. */
@Command(
    name = "iox",
    mixinStandardHelpOptions = true,
    version = "iox 0.1.0",
    description = "inbox-outbox: chaos runs, load, inspection and retention.",
    subcommands = {
      ChaosCommand.class,
      PrepareCommand.class,
      UpCommand.class,
      ProduceCommand.class,
      InspectCommand.class,
      RetentionCommand.class,
      ProviderCommand.class,
      BenchCommand.class,
      DltCommand.class,
      InboxUpgradeCommand.class
    })
public final class Iox implements Runnable {

  /** The command line with iox's handling of {@link OperatorError}. */
  static CommandLine commandLine() {
    return new CommandLine(new Iox()).setExecutionExceptionHandler(OperatorError.handler());
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
