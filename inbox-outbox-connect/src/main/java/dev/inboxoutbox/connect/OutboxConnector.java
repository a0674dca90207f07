package dev.inboxoutbox.connect;

import io.debezium.connector.postgresql.PostgresConnector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's PostgreSQL connector whose tasks store resume positions a restart cannot mistake for a
 * row of another transaction ({@link ResumePosition}). Configured exactly as Debezium's connector;
 * refuses to start with a Debezium other than the one it was built and tested against, because the
 * correction depends on how that version searches the WAL on restart.
 */
public class OutboxConnector extends PostgresConnector {

  @Override
  public void start(Map<String, String> props) {
    DebeziumVersion.requireBuiltAgainst();
    super.start(props);
  }

  /**
   * Debezium's validation, with a value for every setting the connector defines. Debezium answers
   * for fewer settings than {@link #config()} names, and when one of its answers holds an error,
   * Kafka Connect fails on the settings without one while it words the error (KAFKA-20693): a PUT
   * of a configuration with a wrong port was answered 500 with a NullPointerException instead of
   * 400 with Debezium's reason (the connection refused).
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    List<ConfigValue> values = new ArrayList<>(super.validate(connectorConfigs).configValues());
    Set<String> answered = values.stream().map(ConfigValue::name).collect(Collectors.toSet());
    config().configKeys().keySet().stream()
        .filter(name -> !answered.contains(name))
        .forEach(
            name ->
                values.add(
                    new ConfigValue(name, connectorConfigs.get(name), List.of(), List.of())));
    return new Config(values);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxConnectorTask.class;
  }

  @Override
  public String version() {
    return DebeziumVersion.connectorVersion();
  }
}
