package dev.inboxoutbox.connect;

import io.debezium.connector.postgresql.Module;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The Debezium this connector was built against. {@link ResumePosition} corrects for how that
 * version's {@code WalPositionLocator} searches the WAL on restart; under another version the
 * correction is untested, so the connector does not start.
 */
final class DebeziumVersion {

  private static final Properties BUILD = load();

  private DebeziumVersion() {}

  static String builtAgainst() {
    return BUILD.getProperty("debezium.version");
  }

  /** This connector's version and the Debezium it wraps, as Kafka Connect lists plugins. */
  static String connectorVersion() {
    return BUILD.getProperty("version") + "+debezium-" + builtAgainst();
  }

  static void requireBuiltAgainst() {
    requireSame(builtAgainst(), Module.version());
  }

  static void requireSame(String builtAgainst, String found) {
    if (!builtAgainst.equals(found)) {
      throw new ConnectException(
          "inbox-outbox-connect "
              + BUILD.getProperty("version")
              + " wraps Debezium "
              + builtAgainst
              + " but Debezium "
              + found
              + " is on its class path: install the plugin archive of a matching release (its"
              + " Debezium jars included), not this jar beside another Debezium");
    }
  }

  private static Properties load() {
    Properties properties = new Properties();
    try (InputStream in = DebeziumVersion.class.getResourceAsStream("build.properties")) {
      if (in == null) {
        throw new IllegalStateException("build.properties is missing from inbox-outbox-connect");
      }
      properties.load(in);
      return properties;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
