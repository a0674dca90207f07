package dev.inboxoutbox.devstack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;

/**
 * How to run another main class of this application in a child JVM: from {@code iox.jar} (a Spring
 * Boot executable jar) extracted ({@link ExtractedApplication}), or through {@code
 * PropertiesLauncher} with {@code loader.main} when it cannot be extracted, else (tests, the IDE)
 * on this JVM's class path.
 */
final class ChildJvm {

  private ChildJvm() {}

  /**
   * The arguments after the JVM options that run {@code mainClass}: from {@code iox.jar} extracted
   * (with the class's class-data archive once trained) when that works, else through the launcher.
   */
  static List<String> mainClass(String mainClass) {
    String classPath = System.getProperty("java.class.path");
    if (!isExecutableJar(classPath)) {
      return List.of("-cp", classPath, mainClass);
    }
    return extractedApplication()
        .map(extracted -> extracted.launch(mainClass))
        .orElseGet(
            () ->
                List.of(
                    "-cp",
                    classPath,
                    "-Dloader.main=" + mainClass,
                    "org.springframework.boot.loader.launch.PropertiesLauncher"));
  }

  /** {@code iox.jar} extracted, when this JVM runs from it; empty in tests and the IDE. */
  static Optional<ExtractedApplication> extractedApplication() {
    String classPath = System.getProperty("java.class.path");
    return isExecutableJar(classPath)
        ? ExtractedApplication.of(Path.of(classPath))
        : Optional.empty();
  }

  private static boolean isExecutableJar(String classPath) {
    Path path = Path.of(classPath);
    if (classPath.contains(java.io.File.pathSeparator)
        || !classPath.endsWith(".jar")
        || !Files.isRegularFile(path)) {
      return false;
    }
    try (JarFile jar = new JarFile(path.toFile())) {
      return jar.getEntry("BOOT-INF/lib/") != null || jar.getEntry("BOOT-INF/classes/") != null;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
