package dev.inboxoutbox.chaos.fleet;

import dev.inboxoutbox.devstack.ExtractedApplication;
import dev.inboxoutbox.devstack.FreePorts;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * How a service's JVM is launched: from its Spring Boot executable jar extracted next to itself,
 * with a class-data-sharing archive (AppCDS) trained once per build. On two cores shared with
 * PostgreSQL, Kafka and three other services, a restart from the fat jar took 17 to 26 s; most of
 * that is loading and verifying classes, which the archive skips. Faster restarts mean kills land
 * on instances doing work instead of on instances still starting.
 *
 * <p>The archive is only an optimisation: when extraction or training fails the instances start
 * from the fat jar, and a JVM that finds the archive stale ignores it.
 *
 * <p>Either way the chaos extension jar ({@code chaos-extension}) joins the class path, after the
 * service's own classes: its auto-configuration installs the crash points and the negative control
 * from {@code iox.chaos.*}. The extracted jar runs with {@code -cp} and its main class (its
 * manifest's {@code Class-Path} names the libraries); the fat jar runs through Spring Boot's {@code
 * PropertiesLauncher} with {@code loader.path}. Training uses the same class path as the runs, or
 * the JVM would refuse the archive.
 */
public final class FastStartJar {

  /** JVM options for every service process: start-up matters more than peak speed here. */
  static final List<String> JVM_OPTIONS =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Xmx384m");

  /** Part of the archive's stamp: an archive trained otherwise is trained again. */
  private static final String TRAINED_UNTIL = "serving with its relay";

  private static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(3);

  private static final String PROPERTIES_LAUNCHER =
      "org.springframework.boot.loader.launch.PropertiesLauncher";

  private final Path jar;
  private final Path extension;
  private final Path archive;
  private final String mainClass;

  /** {@code archive} and {@code mainClass} are null for a fat jar started as it is. */
  private FastStartJar(Path jar, Path extension, Path archive, String mainClass) {
    this.jar = jar;
    this.extension = extension;
    this.archive = archive;
    this.mainClass = mainClass;
  }

  /** Starts from the fat jar as it is, with the extension on Boot's loader path. */
  static FastStartJar plain(Path executableJar, Path extension) {
    return new FastStartJar(executableJar, extension, null, null);
  }

  /**
   * Extracts {@code executableJar} and trains its archive unless a previous run did so for the same
   * jar and JVM. Training starts the application with {@code properties} (a database of its own and
   * a broker) until it serves and leads its relay, then stops it.
   */
  static FastStartJar prepare(
      Path executableJar,
      Path extension,
      Map<String, String> properties,
      Path log,
      PrintStream out) {
    try {
      ExtractedApplication application =
          ExtractedApplication.of(executableJar)
              .orElseThrow(() -> new IOException("extracting " + executableJar + " failed"));
      Path extracted = application.jar();
      Path archive = application.home().resolve("app.jsa");
      Path stampFile = application.home().resolve("app.stamp");
      String stamp =
          ExtractedApplication.identity(extension) + " " + JVM_OPTIONS + " " + TRAINED_UNTIL;
      // Two runs starting at once (two chaos runs, test JVMs side by side) train it once: the
      // second waits for the first, then finds the archive current.
      try (FileChannel trainingLock =
              FileChannel.open(
                  application.home().resolve("app.lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock trainingAlone = trainingLock.lock()) {
        boolean current =
            Files.exists(stampFile)
                && Files.readString(stampFile).equals(stamp)
                && Files.exists(archive);
        if (!current) {
          long started = System.nanoTime();
          train(extracted, extension, archive, properties, log);
          Files.writeString(stampFile, stamp);
          out.printf(
              "%s: trained a class-data archive in %d s (once per build)%n",
              executableJar.getFileName(),
              TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        }
      }
      return new FastStartJar(extracted, extension, archive, mainClass(extracted));
    } catch (IOException | RuntimeException e) {
      out.printf(
          "%s: no class-data archive (%s); instances start from the fat jar, more slowly (see %s)%n",
          executableJar.getFileName(), e.getMessage(), log);
      return plain(executableJar, extension);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return plain(executableJar, extension);
    }
  }

  /** The arguments after the JVM options: which archive, which class path, which main class. */
  List<String> launch() {
    return usesArchive()
        ? List.of("-XX:SharedArchiveFile=" + archive, "-cp", classPath(jar, extension), mainClass)
        : List.of("-Dloader.path=" + extension, "-cp", jar.toString(), PROPERTIES_LAUNCHER);
  }

  private static String classPath(Path extracted, Path extension) {
    return extracted + File.pathSeparator + extension;
  }

  /** The application's main class, named by the extracted jar's manifest. */
  private static String mainClass(Path extracted) throws IOException {
    try (JarFile jar = new JarFile(extracted.toFile())) {
      Manifest manifest = jar.getManifest();
      String main =
          manifest == null
              ? null
              : manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
      if (main == null) {
        throw new IOException(extracted + " names no Main-Class");
      }
      return main;
    }
  }

  public String description() {
    return usesArchive()
        ? "extracted jar with class-data archive"
        : "fat jar, no class-data archive";
  }

  boolean usesArchive() {
    return archive != null;
  }

  /**
   * Runs the application until it serves and leads its relay (the only instance on its database),
   * then stops it: the archive then holds the classes of the Kafka listeners, the embedded relay
   * and the web server too, which every restart of a chaos run loads again; stopping at the
   * context's refresh left them out.
   */
  private static void train(
      Path extracted, Path extension, Path archive, Map<String, String> properties, Path log)
      throws IOException, InterruptedException {
    int port = FreePorts.belowEphemeralRange();
    List<String> launch = new ArrayList<>();
    launch.add("-cp");
    launch.add(classPath(extracted, extension));
    launch.add(mainClass(extracted));
    launch.add("--server.port=" + port);
    properties.forEach((key, value) -> launch.add("--" + key + "=" + value));
    ExtractedApplication.train(
        archive, JVM_OPTIONS, launch, () -> ServiceProcess.leadsRelay(port), TRAINING_TIMEOUT, log);
  }
}
