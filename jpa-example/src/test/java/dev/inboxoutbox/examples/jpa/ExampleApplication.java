package dev.inboxoutbox.examples.jpa;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@link ShipmentApplication} on the dev stack: a new database of its own (its tables come from the
 * application's migrations), the shared broker, a random HTTP port. Closing it closes the context,
 * then drops the database.
 */
final class ExampleApplication implements AutoCloseable {

  private final Database database;
  private final ConfigurableApplicationContext context;

  private ExampleApplication(Database database, ConfigurableApplicationContext context) {
    this.database = database;
    this.context = context;
  }

  /** Starts the application with {@code testBeans} as further sources and {@code properties}. */
  static ExampleApplication start(List<Class<?>> testBeans, String... properties) {
    Database database = DevStack.shared().postgres().createDatabase();
    try {
      List<String> settings = new ArrayList<>();
      settings.add("spring.datasource.url=" + database.jdbcUrl());
      settings.add("spring.datasource.username=" + database.username());
      settings.add("spring.datasource.password=" + database.password());
      settings.add(
          "spring.kafka.bootstrap-servers=" + DevStack.shared().kafka().bootstrapServers());
      settings.add("server.port=0");
      settings.add("inbox-outbox.retention.enabled=false");
      settings.addAll(List.of(properties));
      List<Class<?>> sources = new ArrayList<>(testBeans);
      sources.add(0, ShipmentApplication.class);
      ConfigurableApplicationContext context =
          new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
              .properties(settings.toArray(String[]::new))
              .run();
      return new ExampleApplication(database, context);
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  ConfigurableApplicationContext context() {
    return context;
  }

  /** The test's own connections to the application's database, outside its transactions. */
  DataSource database() {
    return database.dataSource();
  }

  URI uri(String path) {
    int port = ((WebServerApplicationContext) context).getWebServer().getPort();
    return URI.create("http://localhost:" + port + path);
  }

  /** {@code POST /shipments} with {@code key} as its {@code Idempotency-Key}. */
  HttpResponse<String> postShipment(String key, String order, int quantity)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(uri("/shipments"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"orderId\":\"" + order + "\",\"quantity\":" + quantity + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
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
