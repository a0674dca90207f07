package dev.inboxoutbox.chaos.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** The jars a chaos run launches, found where the reactor build leaves them: module/target. */
public final class ModuleJars {

  private static final String BUILD = "./mvnw -B -q package -DskipTests";

  private ModuleJars() {}

  /**
   * The repository with the built services: the option, else IOX_REPO_ROOT, else the current
   * directory.
   */
  public static Path repoRoot(Path option) {
    return option != null ? option : Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "."));
  }

  /** A service's Spring Boot executable jar ({@code <module>-<version>-exec.jar}). */
  static Path service(Path repoRoot, String module) throws IOException {
    return find(repoRoot, module, "executable jar", name -> name.endsWith("-exec.jar"));
  }

  /**
   * The chaos extension ({@code chaos-extension-<version>.jar}), which the run adds to each
   * service's class path; no service depends on it.
   */
  static Path chaosExtension(Path repoRoot) throws IOException {
    return find(
        repoRoot,
        "chaos-extension",
        "jar",
        name ->
            name.endsWith(".jar")
                && !name.endsWith("-sources.jar")
                && !name.endsWith("-javadoc.jar")
                && !name.endsWith("-tests.jar"));
  }

  private static Path find(Path repoRoot, String module, String what, Predicate<String> named)
      throws IOException {
    Path target = repoRoot.resolve(module).resolve("target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(
              p ->
                  p.getFileName().toString().startsWith(module)
                      && named.test(p.getFileName().toString()))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no " + module + " " + what + " in " + target + "; build first: " + BUILD));
    } catch (NoSuchFileException e) {
      throw new IllegalStateException(
          module + " is not built (" + target + " missing); run " + BUILD, e);
    }
  }
}
