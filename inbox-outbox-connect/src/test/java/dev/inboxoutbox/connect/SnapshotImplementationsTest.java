package dev.inboxoutbox.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.discriminator.ConnectorDiscriminator;
import io.debezium.snapshot.spi.SnapshotLock;
import io.debezium.snapshot.spi.SnapshotQuery;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Debezium looks up the snapshot query and lock of a mode among the implementations marked for the
 * configured connector class, by identity: PostgreSQL's own are marked for {@code
 * PostgresConnector}, not for its subclass. Finding none, it took a matching name from any
 * connector on the class path and logged a WARN at every relay start.
 */
class SnapshotImplementationsTest {

  private static final Configuration OUTBOX_CONNECTOR =
      Configuration.from(Map.of("connector.class", OutboxConnector.class.getName()));

  @Test
  void theOutboxConnectorHasItsOwnSnapshotQueryForEveryModePostgresOffers() {
    assertThat(
            ServiceLoader.load(SnapshotQuery.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(
                    query ->
                        ConnectorDiscriminator.isForCurrentConnector(
                            OUTBOX_CONNECTOR, query.getClass()))
                .map(SnapshotQuery::name))
        .containsExactlyInAnyOrder("select_all");
  }

  @Test
  void theOutboxConnectorHasItsOwnSnapshotLockForEveryModePostgresOffers() {
    assertThat(
            ServiceLoader.load(SnapshotLock.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(
                    lock ->
                        ConnectorDiscriminator.isForCurrentConnector(
                            OUTBOX_CONNECTOR, lock.getClass()))
                .map(SnapshotLock::name))
        .containsExactlyInAnyOrder("none", "shared");
  }
}
