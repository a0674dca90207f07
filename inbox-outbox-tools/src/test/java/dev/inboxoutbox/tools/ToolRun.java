package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.OperatorError;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * One invocation of a tool command as {@code iox} runs it (named under {@code iox}, an {@link
 * OperatorError} as one line), in this JVM: its exit code, what it printed and its error output.
 */
record ToolRun(int exitCode, String out, String err) {

  @Command(
      name = "iox",
      subcommands = {
        InspectCommand.class,
        DltCommand.class,
        RetentionCommand.class,
        InboxUpgradeCommand.class
      })
  private static final class Tools {}

  /** Runs {@code iox args}; System.out is captured for the call, as the commands print there. */
  static synchronized ToolRun of(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int exitCode;
    try (PrintStream captured = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(captured);
      CommandLine iox =
          new CommandLine(new Tools()).setExecutionExceptionHandler(OperatorError.handler());
      iox.setErr(new PrintWriter(err, true));
      exitCode = iox.execute(args);
    } finally {
      System.setOut(original);
    }
    ToolRun run = new ToolRun(exitCode, out.toString(StandardCharsets.UTF_8), err.toString());
    original.println("$ iox " + String.join(" ", args) + "\n" + run.out() + run.err());
    return run;
  }
}
