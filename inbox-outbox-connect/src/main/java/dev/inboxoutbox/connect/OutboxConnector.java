package dev.inboxoutbox.connect;

import io.debezium.connector.postgresql.PostgresConnector;
import java.util.Map;
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

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxConnectorTask.class;
  }

  @Override
  public String version() {
    return DebeziumVersion.connectorVersion();
  }
}
