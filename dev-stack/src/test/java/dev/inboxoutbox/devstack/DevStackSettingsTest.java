package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.devstack.DevStackSettings.PostgresMode;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class DevStackSettingsTest {

  @Test
  void withNothingConfiguredEverythingIsEmbedded() {
    DevStackSettings settings = DevStackSettings.from(new Properties(), Map.of());

    assertThat(settings.postgresMode()).isEqualTo(PostgresMode.EMBEDDED);
    assertThat(settings.kafkaBootstrap()).isEmpty();
  }

  @Test
  void aJdbcUrlInTheEnvironmentSelectsTheExternalServer() {
    DevStackSettings settings =
        DevStackSettings.from(
            new Properties(),
            Map.of("IOX_JDBC_URL", "jdbc:postgresql://db:5432/postgres", "IOX_JDBC_USER", "app"));

    assertThat(settings.postgresMode()).isEqualTo(PostgresMode.EXTERNAL);
    assertThat(settings.jdbcUser()).isEqualTo("app");
  }

  @Test
  void aSystemPropertyWinsOverTheEnvironment() {
    Properties properties = new Properties();
    properties.setProperty("iox.kafka.bootstrap", "from-property:9092");

    DevStackSettings settings =
        DevStackSettings.from(properties, Map.of("IOX_KAFKA_BOOTSTRAP", "from-env:9092"));

    assertThat(settings.kafkaBootstrap()).contains("from-property:9092");
  }

  @Test
  void externalModeWithoutUrlIsRejectedWithTheVariableToSet() {
    assertThatThrownBy(
            () -> DevStackSettings.from(new Properties(), Map.of("IOX_POSTGRES", "external")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IOX_JDBC_URL");
  }

  @Test
  void anUnknownPostgresModeIsRejectedWithTheChoices() {
    assertThatThrownBy(
            () -> DevStackSettings.from(new Properties(), Map.of("IOX_POSTGRES", "docker")))
        .hasMessageContaining("embedded, replicated, external, testcontainers");
  }

  @Test
  void replicatedAsksForAnEmbeddedPrimaryAndStandby() {
    assertThat(
            DevStackSettings.from(new Properties(), Map.of("IOX_POSTGRES", "replicated"))
                .postgresMode())
        .isEqualTo(PostgresMode.REPLICATED);
  }

  @Test
  void theEmbeddedServersSharedBuffersAreReadFromTheEnvironment() {
    assertThat(
            DevStackSettings.from(new Properties(), Map.of("IOX_POSTGRES_SHARED_BUFFERS", " 2GB"))
                .postgresSharedBuffers())
        .contains("2GB");
    assertThat(DevStackSettings.from(new Properties(), Map.of()).postgresSharedBuffers()).isEmpty();
  }

  @Test
  void sharedBuffersPostgresCannotReadAreRejectedWithAnExample() {
    assertThatThrownBy(
            () ->
                DevStackSettings.from(
                    new Properties(), Map.of("IOX_POSTGRES_SHARED_BUFFERS", "2 gigabytes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("such as 2GB")
        .hasMessageContaining("'2 gigabytes'");
  }

  @Test
  void sharedBuffersForAServerTheStackDoesNotStartAreRejected() {
    assertThatThrownBy(
            () ->
                DevStackSettings.from(
                    new Properties(),
                    Map.of(
                        "IOX_JDBC_URL",
                        "jdbc:postgresql://db:5432/postgres",
                        "IOX_POSTGRES_SHARED_BUFFERS",
                        "2GB")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("embedded server only");
  }

  @Test
  void theDatabaseIsReplacedInAJdbcUrlKeepingItsParameters() {
    assertThat(
            ExternalPostgresServer.withDatabase(
                "jdbc:postgresql://db.example:6543/postgres?sslmode=require", "iox_test"))
        .isEqualTo("jdbc:postgresql://db.example:6543/iox_test?sslmode=require");
  }
}
