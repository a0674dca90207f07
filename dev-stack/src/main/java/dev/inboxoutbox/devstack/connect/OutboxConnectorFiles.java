package dev.inboxoutbox.devstack.connect;

import dev.inboxoutbox.devstack.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checked-in Kafka Connect files of docs/relay ({@code connect-distributed.properties}, {@code
 * kafka-connect-outbox.json}) as the tests and {@code iox bench} run them on the dev stack.
 */
public final class OutboxConnectorFiles {

  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Z_]+)}");

  private OutboxConnectorFiles() {}

  /**
   * The checked-in worker file with the dev stack's broker (one, so replication factor 1), a group
   * and storage topics of the group's own, and {@code pluginPath}.
   */
  public static Map<String, String> workerSettings(
      Path workerProperties, String bootstrap, String group, Path pluginPath) {
    Map<String, String> settings = ConnectWorker.settingsFile(workerProperties);
    settings.put("bootstrap.servers", bootstrap);
    settings.put("group.id", group);
    settings.put("config.storage.topic", group + "-configs");
    settings.put("offset.storage.topic", group + "-offsets");
    settings.put("status.storage.topic", group + "-status");
    settings.put("config.storage.replication.factor", "1");
    settings.put("offset.storage.replication.factor", "1");
    settings.put("status.storage.replication.factor", "1");
    settings.put("plugin.path", pluginPath.toString());
    return settings;
  }

  /** The variables the checked-in connector reads from its worker's environment. */
  public static Map<String, String> environment(Database database, String slot) {
    URI url = URI.create(database.jdbcUrl().substring("jdbc:".length()));
    return Map.of(
        "IOX_DB_HOST", url.getHost(),
        "IOX_DB_PORT", String.valueOf(url.getPort()),
        "IOX_DB_NAME", url.getPath().substring(1),
        "IOX_DB_USER", database.username(),
        "IOX_DB_PASSWORD", database.password(),
        "IOX_SLOT_NAME", slot);
  }

  /** The checked-in connector configuration, {@code ${env:...}} left for the worker to resolve. */
  public static Map<String, String> connectorConfig(Path json) {
    try {
      Map<String, Object> file =
          JsonMapper.builder().build().readValue(Files.readString(json), new TypeReference<>() {});
      Map<String, String> config = new LinkedHashMap<>();
      ((Map<?, ?>) file.get("config"))
          .forEach((key, value) -> config.put(key.toString(), value.toString()));
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + json, e);
    }
  }

  /**
   * The checked-in connector configuration with its {@code ${env:...}} values written in, as for
   * one of several databases relayed by the same worker.
   */
  public static Map<String, String> connectorConfig(Path json, Map<String, String> values) {
    Map<String, String> config = new LinkedHashMap<>();
    connectorConfig(json)
        .forEach(
            (name, value) ->
                config.put(
                    name,
                    ENV.matcher(value)
                        .replaceAll(v -> Matcher.quoteReplacement(values.get(v.group(1))))));
    return config;
  }
}
