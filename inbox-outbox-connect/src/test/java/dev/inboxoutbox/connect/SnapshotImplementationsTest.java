package dev.inboxoutbox.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.discriminator.ConnectorDiscriminator;
import io.debezium.snapshot.spi.SnapshotLock;
import io.debezium.snapshot.spi.SnapshotQuery;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Debezium looks up the snapshot query and lock of a mode among the implementations marked for the
 * configured connector class, by identity: PostgreSQL's own are marked for {@code
 * PostgresConnector}, not for its subclass. Finding none, it takes a matching name from any
 * connector on the class path and logs a WARN at every relay start.
 */
class SnapshotImplementationsTest {

  private static final Configuration OUTBOX_CONNECTOR =
      Configuration.from(Map.of("connector.class", OutboxConnector.class.getName()));

  @Test
  void theOutboxConnectorHasItsOwnSnapshotQueryForEveryModePostgresOffers() {
    assertThat(namesMarkedForTheOutboxConnector(SnapshotQuery.class, SnapshotQuery::name))
        .containsExactlyInAnyOrder("select_all");
  }

  @Test
  void theOutboxConnectorHasItsOwnSnapshotLockForEveryModePostgresOffers() {
    assertThat(namesMarkedForTheOutboxConnector(SnapshotLock.class, SnapshotLock::name))
        .containsExactlyInAnyOrder("none", "shared");
  }

  /** The modes of the service's implementations Debezium takes as the connector's own. */
  private static <T> List<String> namesMarkedForTheOutboxConnector(
      Class<T> service, Function<T, String> mode) {
    return ServiceLoader.load(service).stream()
        .map(ServiceLoader.Provider::get)
        .filter(
            implementation ->
                ConnectorDiscriminator.isForCurrentConnector(
                    OUTBOX_CONNECTOR, implementation.getClass()))
        .map(mode)
        .toList();
  }
}
