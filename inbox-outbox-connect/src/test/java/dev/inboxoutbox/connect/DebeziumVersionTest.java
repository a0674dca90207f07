package dev.inboxoutbox.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

class DebeziumVersionTest {

  @Test
  void theConnectorRunsBesideTheDebeziumItWasBuiltAgainst() {
    DebeziumVersion.requireBuiltAgainst();

    assertThat(DebeziumVersion.connectorVersion())
        .endsWith("+debezium-" + DebeziumVersion.builtAgainst());
  }

  @Test
  void anotherDebeziumOnTheClassPathStopsTheConnectorWithTheVersionsNamed() {
    assertThatThrownBy(() -> DebeziumVersion.requireSame("3.5.0.Final", "3.4.3.Final"))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("wraps Debezium 3.5.0.Final but Debezium 3.4.3.Final");
  }
}
