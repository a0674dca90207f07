package dev.inboxoutbox.chaos;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** One {@code iox} invocation in this JVM: its exit code, what it printed and its error output. */
record IoxRun(int exitCode, String out, String err) {

  /** Runs {@code iox args}; System.out is captured for the call, as the commands print there. */
  static synchronized IoxRun of(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int exitCode;
    try (PrintStream captured = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(captured);
      CommandLine iox = Iox.commandLine();
      iox.setErr(new PrintWriter(err, true));
      exitCode = iox.execute(args);
    } finally {
      System.setOut(original);
    }
    IoxRun run = new IoxRun(exitCode, out.toString(StandardCharsets.UTF_8), err.toString());
    original.println("$ iox " + String.join(" ", args) + "\n" + run.out() + run.err());
    return run;
  }
}
