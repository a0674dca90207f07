package dev.inboxoutbox.devstack.spring;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
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
 */
public final class DevStackEnvironment implements EnvironmentPostProcessor, Ordered {

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (!environment.getProperty("iox.dev-stack.enabled", Boolean.class, true)
        || environment.containsProperty("spring.datasource.url")) {
      return;
    }
    DevStack stack = DevStack.shared();
    String name =
        environment.getProperty(
            "iox.dev-stack.database", environment.getProperty("spring.application.name", "iox"));
    Database database =
        stack.postgres().database(name.replaceAll("[^A-Za-z0-9_]", "_").toLowerCase());
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.datasource.url", database.jdbcUrl());
    properties.put("spring.datasource.username", database.username());
    properties.put("spring.datasource.password", database.password());
    if (!environment.containsProperty("spring.kafka.bootstrap-servers")) {
      properties.put("spring.kafka.bootstrap-servers", stack.kafka().bootstrapServers());
    }
    environment.getPropertySources().addFirst(new MapPropertySource("iox-dev-stack", properties));
  }

  @Override
  public int getOrder() {
    // After application.yml is loaded, so a configured datasource wins.
    return Ordered.LOWEST_PRECEDENCE;
  }
}
