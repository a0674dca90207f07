package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A Spring Boot executable jar extracted next to itself once per build ({@code iox.jar} here, the
 * services' jars for the chaos run), with a class-data (AppCDS) archive per child main class that
 * has been trained. A child JVM started through Spring Boot's launcher reads its classes out of
 * nested jars, and a JVM can map no archive for those; from the extracted jar it maps the classes
 * it used last time: a Kafka broker of a chaos run starts on about a third of the CPU
 * (docs/benchmarks.md, "Kafka broker start"), and a broker is restarted several times a run on two
 * cores short of CPU.
 *
 * <p>Only an optimisation: when extraction fails, or an archive is missing or belongs to another
 * build or JVM, the child starts without it.
 */
public final class ExtractedApplication {

  private static final long EXTRACT_TIMEOUT_SECONDS = 120;

  private final Path home;
  private final Path jar;

  private ExtractedApplication(Path home, Path jar) {
    this.home = home;
    this.jar = jar;
  }

  /**
   * {@code executableJar} extracted into {@code iox-fast-start} beside it, extracting it now when
   * that copy is missing or belongs to another build; empty when extraction fails.
   */
  public static synchronized Optional<ExtractedApplication> of(Path executableJar) {
    Path home = executableJar.toAbsolutePath().resolveSibling("iox-fast-start");
    Path extracted = home.resolve(executableJar.getFileName());
    Path stampFile = home.resolve("stamp");
    try {
      String stamp = identity(executableJar);
      boolean current =
          Files.exists(extracted)
              && Files.exists(stampFile)
              && Files.readString(stampFile).equals(stamp);
      if (!current) {
        extract(executableJar, home);
        Files.writeString(stampFile, stamp);
      }
      return Optional.of(new ExtractedApplication(home, extracted));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Where the copy and its archives live: {@code iox-fast-start} beside the executable jar. */
  public Path home() {
    return home;
  }

  /** The extracted jar: its manifest's {@code Class-Path} names the libraries beside it. */
  public Path jar() {
    return jar;
  }

  /** The arguments after the JVM options: its archive when trained, the class path, the class. */
  List<String> launch(String mainClass) {
    List<String> arguments = new ArrayList<>();
    if (trained(mainClass)) {
      arguments.add("-XX:SharedArchiveFile=" + archive(mainClass));
    }
    arguments.addAll(List.of("-cp", jar.toString(), mainClass));
    return arguments;
  }

  boolean trained(String mainClass) {
    return Files.exists(archive(mainClass));
  }

  /**
   * Trains {@code mainClass}'s archive from the extracted jar: see {@link #train(Path, List, List,
   * BooleanSupplier, Duration, Path)}.
   */
  void train(
      String mainClass,
      List<String> jvmOptions,
      List<String> arguments,
      BooleanSupplier ready,
      Duration timeout,
      Path log)
      throws IOException, InterruptedException {
    List<String> launch = new ArrayList<>(List.of("-cp", jar.toString(), mainClass));
    launch.addAll(arguments);
    train(archive(mainClass), jvmOptions, launch, ready, timeout, log);
  }

  /**
   * Trains {@code archive}: runs {@code java jvmOptions -XX:ArchiveClassesAtExit=... launch} (the
   * class path, the main class and its arguments), waits until {@code ready} says the process has
   * done what its runs do first, stops it with SIGTERM (the JVM writes the classes it loaded as it
   * exits) and moves the archive into place. The child's output goes to {@code log}.
   */
  public static void train(
      Path archive,
      List<String> jvmOptions,
      List<String> launch,
      BooleanSupplier ready,
      Duration timeout,
      Path log)
      throws IOException, InterruptedException {
    Path written =
        Files.createTempFile(archive.toAbsolutePath().getParent(), "training-", ".jsa.tmp");
    Files.delete(written);
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(jvmOptions);
    command.add("-XX:ArchiveClassesAtExit=" + written);
    command.addAll(launch);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!ready.getAsBoolean()) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IOException(
              "the training run for " + archive.getFileName() + " did not get ready; see " + log);
        }
        Thread.sleep(100);
      }
      process.destroy();
      if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS) || !Files.exists(written)) {
        throw new IOException(
            "the training run for " + archive.getFileName() + " wrote no archive; see " + log);
      }
      Files.move(
          written, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(written);
    }
  }

  private Path archive(String mainClass) {
    return home.resolve(mainClass + ".jsa");
  }

  /**
   * Identifies a built file and the JVM: either changing makes what was extracted or trained from
   * it stale.
   */
  public static String identity(Path file) throws IOException {
    return file.toAbsolutePath()
        + " "
        + Files.size(file)
        + " "
        + Files.getLastModifiedTime(file).toMillis()
        + " "
        + System.getProperty("java.home")
        + " "
        + System.getProperty("java.vm.version");
  }

  /**
   * Extracts into a staging directory and moves it into place, so that another process never sees
   * half a copy; when another process moved its copy in first, that one is used.
   */
  private static void extract(Path executableJar, Path home)
      throws IOException, InterruptedException {
    BaseBackup.deleteRecursively(home);
    Path staging = Files.createTempDirectory(home.getParent(), "iox-fast-start-");
    Process process =
        new ProcessBuilder(
                java(),
                "-Djarmode=tools",
                "-jar",
                executableJar.toString(),
                "extract",
                "--destination",
                staging.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(EXTRACT_TIMEOUT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      BaseBackup.deleteRecursively(staging);
      throw new IOException("extracting " + executableJar + " failed");
    }
    try {
      Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileSystemException movedInByAnother) {
      BaseBackup.deleteRecursively(staging);
      if (!Files.isDirectory(home)) {
        throw movedInByAnother;
      }
    }
  }

  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
