package dev.inboxoutbox.iox;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** {@code iox} started as its own process, as a person runs it, its output read line by line. */
final class IoxProcess implements AutoCloseable {

  private static final Duration STOP_PATIENCE = Duration.ofSeconds(90);

  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private IoxProcess(Process process) {
    this.process = process;
    this.reader = new Thread(this::readOutput, "iox-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code iox} from the test class path. */
  static IoxProcess start(String... arguments) throws IOException {
    return new IoxProcess(fromClassPath(arguments).start());
  }

  /**
   * Starts the packaged {@code iox-cli/target/iox.jar} from the repository root, as {@code ./iox}
   * runs it: with the libraries the jar holds, not the test class path.
   */
  static IoxProcess startPackaged(String... arguments) throws IOException {
    return new IoxProcess(
        command(
                List.of("-jar", Repository.ROOT.resolve("iox-cli/target/iox.jar").toString()),
                arguments)
            .directory(Repository.ROOT.toFile())
            .start());
  }

  /** Whether something accepts connections on {@code port} of this machine. */
  static boolean listening(int port) {
    try (Socket socket = new Socket("localhost", port)) {
      return true;
    } catch (IOException closed) {
      return false;
    }
  }

  /** Runs a command to its end and returns what it printed. */
  static String run(String... arguments) throws IOException, InterruptedException {
    Process process = fromClassPath(arguments).start();
    String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(2, TimeUnit.MINUTES);
    return text;
  }

  List<String> output() {
    return output;
  }

  String printed() {
    return String.join("\n", output);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  List<ProcessHandle> descendants() {
    return process.descendants().toList();
  }

  /**
   * Sends SIGTERM (what Ctrl-C's SIGINT does too) and waits for the exit; returns the lines printed
   * after the signal, or null when the process did not exit within {@code timeout}.
   */
  List<String> terminate(Duration timeout) throws InterruptedException {
    int before = output.size();
    // Through the handle: Process.destroy() would also close the pipe the stop is read from.
    process.toHandle().destroy();
    if (!waitFor(timeout)) {
      return null;
    }
    return List.copyOf(output.subList(before, output.size()));
  }

  /** Whether the process exited within {@code timeout}; its output is then read to the end. */
  boolean waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return false;
    }
    reader.join(Duration.ofSeconds(10).toMillis());
    return true;
  }

  int exitValue() {
    return process.exitValue();
  }

  /**
   * What it printed and where each of its threads stands ({@code jcmd Thread.print}): what a test
   * shows when the process does not end in time.
   */
  String stateWhenStuck() {
    String threads;
    try {
      Process jcmd =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(process.pid()),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      threads = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      jcmd.waitFor(30, TimeUnit.SECONDS);
    } catch (IOException e) {
      threads = "no thread dump: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      threads = "no thread dump: interrupted";
    }
    return "printed:\n" + printed() + "\nthreads:\n" + threads;
  }

  /**
   * Stops {@code iox} as a person does (SIGTERM, then its own orderly stop) and kills what is left
   * after {@link #STOP_PATIENCE}. A kill alone would leave PostgreSQL running: pg_ctl starts it as
   * no child of {@code iox}, and only {@code iox}'s stop stops it.
   */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.toHandle().destroy();
      waitFor(STOP_PATIENCE);
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
  }

  private static ProcessBuilder fromClassPath(String... arguments) {
    return command(
        List.of("-cp", System.getProperty("java.class.path"), Iox.class.getName()), arguments);
  }

  /**
   * This JVM's {@code java} with {@code launch} (what to run) and {@code iox}'s arguments. C1 only,
   * as the test JVMs themselves (and {@code ./iox chaos}): each {@code iox} lives under two minutes
   * here, too short for C2's compilations to pay back their CPU, and the JIT changes nothing of
   * what the tests check.
   */
  private static ProcessBuilder command(List<String> launch, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.addAll(launch);
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command).redirectErrorStream(true);
  }

  private void readOutput() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        output.add(line);
      }
    } catch (IOException ended) {
      // the process is gone
    }
  }
}
