package dev.inboxoutbox.devstack;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Where the dev stack takes PostgreSQL and Kafka from. Every setting is read from a system property
 * first and from an environment variable second, so both {@code -Diox.jdbc.url=...} and {@code
 * IOX_JDBC_URL=...} work.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>property / variable</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code iox.postgres} / {@code IOX_POSTGRES}</td>
 *       <td>{@code embedded}, {@code replicated} (embedded primary and streaming standby), {@code external}
 *       or {@code testcontainers}</td>
 *       <td>{@code external} when a JDBC URL is set, else {@code embedded}</td></tr>
 *   <tr><td>{@code iox.jdbc.url} / {@code IOX_JDBC_URL}</td>
 *       <td>JDBC URL of an external server; the user must be allowed to create databases</td><td>none</td></tr>
 *   <tr><td>{@code iox.jdbc.user} / {@code IOX_JDBC_USER}</td><td>user for the external server</td>
 *       <td>{@code postgres}</td></tr>
 *   <tr><td>{@code iox.jdbc.password} / {@code IOX_JDBC_PASSWORD}</td><td>its password</td><td>empty</td></tr>
 *   <tr><td>{@code iox.postgres.port} / {@code IOX_POSTGRES_PORT}</td><td>port of the embedded server
 *       (replicated: of the address that follows the primary)</td>
 *       <td>any free port</td></tr>
 *   <tr><td>{@code iox.postgres.shared_buffers} / {@code IOX_POSTGRES_SHARED_BUFFERS}</td>
 *       <td>{@code shared_buffers} of the embedded server ({@code 2GB}, {@code 512MB}); refused
 *       with any other mode, whose server has settings of its own</td>
 *       <td>PostgreSQL's default (128 MB)</td></tr>
 *   <tr><td>{@code iox.kafka.bootstrap} / {@code IOX_KAFKA_BOOTSTRAP}</td>
 *       <td>bootstrap servers of an external Kafka cluster</td><td>none: an in-JVM KRaft broker</td></tr>
 *   <tr><td>{@code iox.kafka.port} / {@code IOX_KAFKA_PORT}</td><td>port of the in-JVM broker</td>
 *       <td>any free port</td></tr>
 *   <tr><td>{@code iox.work.dir} / {@code IOX_WORK_DIR}</td>
 *       <td>where embedded PostgreSQL unpacks its binaries and keeps its data</td>
 *       <td>{@code target/dev-stack} under the working directory when it exists, else the temp dir</td></tr>
 * </table>
 */
public record DevStackSettings(
    PostgresMode postgresMode,
    Optional<String> jdbcUrl,
    String jdbcUser,
    String jdbcPassword,
    int postgresPort,
    Optional<String> postgresSharedBuffers,
    Optional<String> kafkaBootstrap,
    int kafkaPort,
    Path workDir) {

  private static final Pattern MEMORY_SIZE = Pattern.compile("[1-9][0-9]*(kB|MB|GB|TB)?");

  /** How PostgreSQL is provided. */
  public enum PostgresMode {
    EMBEDDED,
    /** A primary and a streaming standby behind one address ({@link ReplicatedPostgresServer}). */
    REPLICATED,
    EXTERNAL,
    TESTCONTAINERS
  }

  public DevStackSettings {
    if (postgresMode == PostgresMode.EXTERNAL && jdbcUrl.isEmpty()) {
      throw new IllegalArgumentException(
          "iox.postgres=external needs a JDBC URL: set iox.jdbc.url or IOX_JDBC_URL");
    }
    if (postgresSharedBuffers.isPresent()) {
      requireMemorySize("iox.postgres.shared_buffers", postgresSharedBuffers.get());
      if (postgresMode != PostgresMode.EMBEDDED) {
        throw new IllegalArgumentException(
            "iox.postgres.shared_buffers sizes the embedded server only; with iox.postgres="
                + postgresMode.name().toLowerCase(Locale.ROOT)
                + " it does not apply");
      }
    }
    if (postgresPort < 0 || kafkaPort < 0) {
      throw new IllegalArgumentException("ports must be 0 (any free port) or positive");
    }
  }

  /**
   * Refuses a {@code value} for the setting {@code name} that PostgreSQL would not read as an
   * amount of memory ({@code 2GB}, {@code 512MB}, {@code 65536} pages of 8 kB).
   */
  public static void requireMemorySize(String name, String value) {
    if (!MEMORY_SIZE.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must be a size PostgreSQL reads, such as 2GB or 512MB; was '" + value + "'");
    }
  }

  /** Reads the settings from system properties, then environment variables. */
  public static DevStackSettings fromEnvironment() {
    return from(System.getProperties(), System.getenv());
  }

  static DevStackSettings from(Properties properties, Map<String, String> environment) {
    Lookup lookup = new Lookup(properties, environment);
    Optional<String> jdbcUrl = lookup.get("iox.jdbc.url");
    PostgresMode mode =
        lookup
            .get("iox.postgres")
            .map(value -> parseMode(value))
            .orElse(jdbcUrl.isPresent() ? PostgresMode.EXTERNAL : PostgresMode.EMBEDDED);
    return new DevStackSettings(
        mode,
        jdbcUrl,
        lookup.get("iox.jdbc.user").orElse("postgres"),
        lookup.get("iox.jdbc.password").orElse(""),
        lookup
            .get("iox.postgres.port")
            .map(value -> parsePort("iox.postgres.port", value))
            .orElse(0),
        lookup.get("iox.postgres.shared_buffers").map(String::trim),
        lookup.get("iox.kafka.bootstrap"),
        lookup.get("iox.kafka.port").map(value -> parsePort("iox.kafka.port", value)).orElse(0),
        lookup.get("iox.work.dir").map(Path::of).orElseGet(DevStackSettings::defaultWorkDir));
  }

  public DevStackSettings withPostgresPort(int port) {
    return new DevStackSettings(
        postgresMode,
        jdbcUrl,
        jdbcUser,
        jdbcPassword,
        port,
        postgresSharedBuffers,
        kafkaBootstrap,
        kafkaPort,
        workDir);
  }

  /** These settings with PostgreSQL provided as {@code mode}. */
  public DevStackSettings withPostgresMode(PostgresMode mode) {
    return new DevStackSettings(
        mode,
        jdbcUrl,
        jdbcUser,
        jdbcPassword,
        postgresPort,
        postgresSharedBuffers,
        kafkaBootstrap,
        kafkaPort,
        workDir);
  }

  public DevStackSettings withKafkaPort(int port) {
    return new DevStackSettings(
        postgresMode,
        jdbcUrl,
        jdbcUser,
        jdbcPassword,
        postgresPort,
        postgresSharedBuffers,
        kafkaBootstrap,
        port,
        workDir);
  }

  /** These settings with Kafka somebody else runs: the stack then starts no broker. */
  public DevStackSettings withKafkaBootstrap(String bootstrapServers) {
    return new DevStackSettings(
        postgresMode,
        jdbcUrl,
        jdbcUser,
        jdbcPassword,
        postgresPort,
        postgresSharedBuffers,
        Optional.of(bootstrapServers),
        kafkaPort,
        workDir);
  }

  /** These settings with the embedded server's {@code shared_buffers} set to {@code size}. */
  public DevStackSettings withPostgresSharedBuffers(String size) {
    return new DevStackSettings(
        postgresMode,
        jdbcUrl,
        jdbcUser,
        jdbcPassword,
        postgresPort,
        Optional.of(size),
        kafkaBootstrap,
        kafkaPort,
        workDir);
  }

  private static PostgresMode parseMode(String value) {
    try {
      return PostgresMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "iox.postgres must be one of embedded, replicated, external, testcontainers; was '"
              + value
              + "'",
          e);
    }
  }

  /** {@code value} of the setting {@code name} as a port, or a message naming both. */
  public static int parsePort(String name, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a port number; was '" + value + "'", e);
    }
  }

  private static Path defaultWorkDir() {
    Path target = Path.of("target");
    return target.toFile().isDirectory()
        ? target.resolve("dev-stack").toAbsolutePath()
        : Path.of(System.getProperty("java.io.tmpdir"), "iox-dev-stack");
  }

  /** {@code iox.jdbc.url} is looked up as a property, then as {@code IOX_JDBC_URL}. */
  private record Lookup(Properties properties, Map<String, String> environment) {
    Optional<String> get(String property) {
      String value = properties.getProperty(property);
      if (value == null) {
        value = environment.get(property.toUpperCase(Locale.ROOT).replace('.', '_'));
      }
      return Optional.ofNullable(value).filter(v -> !v.isBlank());
    }
  }
}
