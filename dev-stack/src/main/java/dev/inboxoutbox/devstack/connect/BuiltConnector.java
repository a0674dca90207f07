package dev.inboxoutbox.devstack.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a worker running the outbox connector takes from a build of this repository: the plugin
 * archive and the worker's class path that {@code inbox-outbox-connect}'s build writes, and the
 * checked-in worker and connector files of docs/relay.
 */
public record BuiltConnector(
    Path pluginArchive, Path workerClassPath, Path workerProperties, Path connectorJson) {

  /**
   * The files under {@code repoRoot}.
   *
   * @throws NotBuilt naming the first file missing, in one line
   */
  public static BuiltConnector in(Path repoRoot) {
    Path target = repoRoot.resolve("inbox-outbox-connect").resolve("target");
    Path docs = repoRoot.resolve("docs").resolve("relay");
    return new BuiltConnector(
        pluginArchive(target),
        present(target.resolve("connect-worker.classpath"), "the Connect worker's class path"),
        present(docs.resolve("connect-distributed.properties"), "the worker file"),
        present(docs.resolve("kafka-connect-outbox.json"), "the connector file"));
  }

  /** The worker's class path as the build wrote it. */
  public String workerClassPathText() {
    try {
      return Files.readString(workerClassPath).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + workerClassPath, e);
    }
  }

  /**
   * The checked-in worker file for {@code group} on {@code bootstrap} (see {@link
   * OutboxConnectorFiles#workerSettings}), the plugin archive unpacked under {@code directory}.
   */
  public Map<String, String> workerSettings(String bootstrap, String group, Path directory) {
    return OutboxConnectorFiles.workerSettings(
        workerProperties,
        bootstrap,
        group,
        PluginPath.unpacked(pluginArchive, directory.resolve("plugins")));
  }

  /** The checked-in connector configuration, {@code ${env:...}} left for the worker to resolve. */
  public Map<String, String> connector() {
    return OutboxConnectorFiles.connectorConfig(connectorJson);
  }

  /**
   * The checked-in connector configuration with its {@code ${env:...}} values written in, as for
   * one of several databases relayed by the same worker.
   */
  public Map<String, String> connector(Map<String, String> values) {
    return OutboxConnectorFiles.connectorConfig(connectorJson, values);
  }

  private static Path pluginArchive(Path target) {
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("inbox-outbox-connect-"))
          .filter(p -> p.getFileName().toString().endsWith("-plugin.zip"))
          .findFirst()
          .orElseThrow(() -> new NotBuilt("no outbox connector plugin archive in " + target));
    } catch (NoSuchFileException e) {
      throw new NotBuilt("inbox-outbox-connect is not built (" + target + " missing)");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path present(Path file, String what) {
    if (!Files.isRegularFile(file)) {
      throw new NotBuilt("no " + what + " at " + file);
    }
    return file;
  }

  /** A file the connector needs is missing: the repository is not built, or not this one. */
  public static final class NotBuilt extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotBuilt(String message) {
      super(message);
    }
  }
}
