package dev.inboxoutbox.spring;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A test's Spring Boot application on the dev stack: a new database of its own, created with the
 * tables the application's handlers write, and the context pointed at it and at the shared broker.
 * Closing it closes the context, then drops the database.
 */
public final class DevStackApplication implements AutoCloseable {

  private final Database database;
  private final ConfigurableApplicationContext context;

  private DevStackApplication(Database database, ConfigurableApplicationContext context) {
    this.database = database;
    this.context = context;
  }

  /**
   * Creates the database, runs {@code tables} in it (statements separated by semicolons), then
   * starts {@code application} with {@code properties} over the connection settings.
   */
  public static DevStackApplication start(
      Class<?> application, WebApplicationType type, String tables, String... properties)
      throws SQLException {
    Database database = DevStack.shared().postgres().createDatabase();
    try {
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement()) {
        statement.execute(tables);
      }
      List<String> settings = new ArrayList<>();
      settings.add("spring.datasource.url=" + database.jdbcUrl());
      settings.add("spring.datasource.username=" + database.username());
      settings.add("spring.datasource.password=" + database.password());
      settings.add(
          "spring.kafka.bootstrap-servers=" + DevStack.shared().kafka().bootstrapServers());
      settings.addAll(List.of(properties));
      ConfigurableApplicationContext context =
          new SpringApplicationBuilder(application)
              .web(type)
              .properties(settings.toArray(String[]::new))
              .run();
      return new DevStackApplication(database, context);
    } catch (SQLException | RuntimeException e) {
      database.close();
      throw e;
    }
  }

  public Database database() {
    return database;
  }

  public ConfigurableApplicationContext context() {
    return context;
  }

  @Override
  public void close() {
    try {
      context.close();
    } finally {
      database.close();
    }
  }
}
