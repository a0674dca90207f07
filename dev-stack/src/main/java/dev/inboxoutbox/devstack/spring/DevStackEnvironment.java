package dev.inboxoutbox.devstack.spring;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets a Spring Boot service run with nothing installed: when no {@code spring.datasource.url} is
 * configured, it starts the dev stack (embedded PostgreSQL with logical WAL and an in-JVM Kafka, or
 * the external servers named by {@code IOX_JDBC_URL} / {@code IOX_KAFKA_BOOTSTRAP}) and points the
 * datasource and Kafka at it. The database is named after {@code iox.dev-stack.database}, else
 * {@code spring.application.name}. {@code iox.dev-stack.enabled=false} turns this off.
 *
 * <p>Kafka: a configured {@code spring.kafka.bootstrap-servers} is kept, unless {@code
 * iox.kafka.port} asks for the stack's broker on a port of its own: that explicit request wins, so
 * a bootstrap-servers system property another embedded broker left behind (spring-kafka-test
 * publishes its brokers there) does not send the application elsewhere.
 */
public final class DevStackEnvironment implements EnvironmentPostProcessor, Ordered {

  private static final String KAFKA_PORT = "iox.kafka.port";
  private static final String BOOTSTRAP_SERVERS = "spring.kafka.bootstrap-servers";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (!environment.getProperty("iox.dev-stack.enabled", Boolean.class, true)
        || environment.containsProperty("spring.datasource.url")) {
      return;
    }
    DevStackSettings settings = settings(environment);
    DevStack stack = DevStack.shared(settings);
    String name =
        environment.getProperty(
            "iox.dev-stack.database", environment.getProperty("spring.application.name", "iox"));
    Database database =
        stack.postgres().database(name.replaceAll("[^A-Za-z0-9_]", "_").toLowerCase());
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.datasource.url", database.jdbcUrl());
    properties.put("spring.datasource.username", database.username());
    properties.put("spring.datasource.password", database.password());
    boolean brokerOnAskedPort = settings.kafkaBootstrap().isEmpty() && settings.kafkaPort() > 0;
    if (brokerOnAskedPort || !environment.containsProperty(BOOTSTRAP_SERVERS)) {
      properties.put(BOOTSTRAP_SERVERS, stack.kafka().bootstrapServers());
    }
    environment.getPropertySources().addFirst(new MapPropertySource("iox-dev-stack", properties));
  }

  /**
   * The stack's settings, with {@code iox.kafka.port} also read from the application's own
   * configuration ({@code @SpringBootTest(properties = ...)}, application.yml), not only from the
   * system properties and environment variables the stack reads itself.
   */
  private static DevStackSettings settings(ConfigurableEnvironment environment) {
    DevStackSettings settings = DevStackSettings.fromEnvironment();
    String kafkaPort = environment.getProperty(KAFKA_PORT);
    if (kafkaPort == null || kafkaPort.isBlank()) {
      return settings;
    }
    return settings.withKafkaPort(DevStackSettings.parsePort(KAFKA_PORT, kafkaPort));
  }

  @Override
  public int getOrder() {
    // After application.yml is loaded, so a configured datasource wins.
    return Ordered.LOWEST_PRECEDENCE;
  }
}
