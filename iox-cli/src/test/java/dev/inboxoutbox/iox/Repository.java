package dev.inboxoutbox.iox;

import java.nio.file.Path;

/** The repository the tests run in: {@code IOX_REPO_ROOT}, else the parent of this module. */
final class Repository {

  static final Path ROOT =
      Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "..")).toAbsolutePath().normalize();

  private Repository() {}
}
