package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ModuleJars;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the built services are and where logs and reports go: the same for chaos, prepare, up. */
public final class RunDirectories {

  @Option(
      names = "--repo",
      paramLabel = "DIRECTORY",
      description =
          "Repository root with the built services (default: current directory or IOX_REPO_ROOT).")
  Path repo;

  @Option(
      names = "--reports",
      paramLabel = "DIRECTORY",
      defaultValue = "iox-reports",
      description = "Where reports and the services' logs go (default ${DEFAULT-VALUE}).")
  Path reports;

  Path repoRoot() {
    return ModuleJars.repoRoot(repo).toAbsolutePath().normalize();
  }

  Path reports() {
    return reports.toAbsolutePath();
  }
}
