package dev.inboxoutbox.devstack;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The optional Testcontainers path, for machines with a Docker engine. Only loaded when {@code
 * iox.postgres=testcontainers}; the Testcontainers jars are an optional dependency.
 */
final class ContainerPostgresServer implements PostgresServer {

  static final String IMAGE = "postgres:17.6-alpine";

  private final PostgreSQLContainer container;
  private final ExternalPostgresServer delegate;

  private ContainerPostgresServer(PostgreSQLContainer container) {
    this.container = container;
    this.delegate =
        new ExternalPostgresServer(
            container.getJdbcUrl(), container.getUsername(), container.getPassword());
  }

  static ContainerPostgresServer start() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new DevStackException(
          "iox.postgres=testcontainers needs a Docker engine and none answered;"
              + " unset it to use embedded PostgreSQL");
    }
    PostgreSQLContainer container =
        new PostgreSQLContainer(IMAGE).withCommand("postgres", "-c", "wal_level=logical");
    container.start();
    return new ContainerPostgresServer(container);
  }

  @Override
  public Database createDatabase() {
    return delegate.createDatabase();
  }

  @Override
  public Database database(String name) {
    return delegate.database(name);
  }

  @Override
  public String description() {
    return "PostgreSQL container " + IMAGE + " at " + container.getJdbcUrl();
  }

  @Override
  public void close() {
    container.stop();
  }
}
