package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The relay's settings: validated when built, passed to Debezium and the relay's producer. */
class RelaySettingsTest {

  private static RelaySettings.Builder required() {
    return RelaySettings.builder()
        .jdbcUrl("jdbc:postgresql://db:5432/shop")
        .kafkaBootstrapServers("kafka:9092");
  }

  private static Properties engineProperties(RelaySettings settings) {
    return engineProperties(settings, true);
  }

  private static Properties engineProperties(RelaySettings settings, boolean slotExists) {
    return EngineConfiguration.of(settings, slotExists);
  }

  @Test
  void anExistingSlotIsTrustedOverOlderStoredOffsetsAndAMissingOneIsNot() {
    assertThat(engineProperties(required().build(), true))
        .containsEntry("offset.mismatch.strategy", "trust_slot");
    assertThat(engineProperties(required().build(), false))
        .doesNotContainKey("offset.mismatch.strategy");
  }

  @Test
  void theEngineGetsTheLowLatencyDefaultsUnlessSet() {
    Properties engine = engineProperties(required().build());

    assertThat(engine)
        .containsEntry("poll.interval.ms", "25")
        .containsEntry("max.batch.size", "2048")
        .containsEntry("max.queue.size", "8192")
        .containsEntry("offset.flush.interval.ms", "1000");
  }

  @Test
  void theEngineGetsThePollIntervalBatchQueueAndFlushIntervalAsSet() {
    Properties engine =
        engineProperties(
            required()
                .pollInterval(Duration.ofMillis(25))
                .maxBatchSize(100)
                .maxQueueSize(101)
                .offsetFlushInterval(Duration.ofMillis(250))
                .build());

    assertThat(engine)
        .containsEntry("poll.interval.ms", "25")
        .containsEntry("max.batch.size", "100")
        .containsEntry("max.queue.size", "101")
        .containsEntry("offset.flush.interval.ms", "250");
  }

  @Test
  void aPollIntervalBelowOneMillisecondIsRefusedByName() {
    assertThatThrownBy(() -> required().pollInterval(Duration.ofNanos(500_000)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting pollInterval must be at least 1 ms, got: PT0.0005S");
    assertThatThrownBy(() -> required().pollInterval(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting pollInterval must be positive");
  }

  @Test
  void anOffsetFlushIntervalBelowOneMillisecondIsRefusedByName() {
    assertThatThrownBy(() -> required().offsetFlushInterval(Duration.ofNanos(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting offsetFlushInterval must be at least 1 ms, got: PT0.000000001S");
  }

  @Test
  void aBatchSizeBelowOneIsRefused() {
    assertThatThrownBy(() -> required().maxBatchSize(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting maxBatchSize must be at least 1, got: 0");
  }

  @Test
  void aQueueNoLargerThanTheBatchIsRefusedNamingBoth() {
    assertThatThrownBy(() -> required().maxBatchSize(500).maxQueueSize(500).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting maxQueueSize must be larger than maxBatchSize (500), got: 500");
    assertThatThrownBy(() -> required().maxQueueSize(2048).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "relay setting maxQueueSize must be larger than maxBatchSize (2048), got: 2048");
  }

  @Test
  void theConnectorGetsTheFirstHostOfTheUrlAndItsUserUnlessOneIsSet() {
    String url = "jdbc:postgresql://db1:6543,db2:6544/shop?user=app&password=secret";

    assertThat(engineProperties(required().jdbcUrl(url).build()))
        .containsEntry("database.hostname", "db1")
        .containsEntry("database.port", "6543")
        .containsEntry("database.dbname", "shop")
        .containsEntry("database.user", "app")
        .containsEntry("database.password", "secret")
        .containsEntry("offset.storage.jdbc.connection.url", url)
        .containsEntry("slot.name", "iox_outbox_shop");
    assertThat(engineProperties(required().jdbcUrl(url).user("relay").password("pw").build()))
        .containsEntry("database.user", "relay")
        .containsEntry("database.password", "pw")
        .containsEntry("offset.storage.jdbc.connection.user", "relay");
  }

  @Test
  void aUrlThatIsNotPostgresqlOrNamesNoDatabaseIsRefused() {
    assertThatThrownBy(() -> required().jdbcUrl(null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting jdbcUrl is required");
    assertThatThrownBy(() -> required().jdbcUrl("jdbc:mysql://db/shop").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a PostgreSQL JDBC URL: jdbc:mysql://db/shop");
    assertThatThrownBy(() -> required().jdbcUrl("jdbc:postgresql://db:5432/").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the JDBC URL names no database: jdbc:postgresql://db:5432/");
  }

  @Test
  void theAddressPrintsNoPassword() {
    RelaySettings settings =
        required().jdbcUrl("jdbc:postgresql://db:5432/shop?password=secret").build();

    assertThat(settings.address()).hasToString("postgres@db:5432/shop");
  }

  @Test
  void aRestartBackoffMaximumBelowItsMinimumIsRefused() {
    assertThatThrownBy(
            () -> required().restartBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("restartBackoffMax must not be below restartBackoffMin");
    assertThatThrownBy(() -> required().standbyPollInterval(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("relay setting standbyPollInterval must be positive");
  }

  @Test
  void producerSettingsReachTheProducerAsGivenNotAsStrings() {
    Map<String, Object> producer =
        OutboxRelay.producerProperties(
            required()
                .producerProperty("retries", 7)
                .producerProperty("metric.reporters", List.of("a.B", "c.D"))
                .producerProperty("enable.idempotence", "false")
                .build(),
            "relay-1");

    assertThat(producer)
        .containsEntry("retries", 7)
        .containsEntry("metric.reporters", List.of("a.B", "c.D"))
        .containsEntry("enable.idempotence", "true")
        .containsEntry("acks", "all")
        .containsEntry("client.id", "relay-1")
        .containsEntry("bootstrap.servers", "kafka:9092");
  }
}
