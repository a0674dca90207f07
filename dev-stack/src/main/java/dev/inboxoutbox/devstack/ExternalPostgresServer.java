package dev.inboxoutbox.devstack;

import java.net.URI;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A server somebody else runs (docker compose, CI service, a real deployment). Each database the
 * dev stack creates there is dropped again on close; the server itself is left alone.
 */
final class ExternalPostgresServer implements PostgresServer {

  private final String adminUrl;
  private final AdminDatabases databases;

  ExternalPostgresServer(String adminUrl, String username, String password) {
    if (!adminUrl.startsWith("jdbc:postgresql://")) {
      throw new IllegalArgumentException(
          "iox.jdbc.url must look like jdbc:postgresql://host:port/database; was '"
              + adminUrl
              + "'");
    }
    this.adminUrl = adminUrl;
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setUrl(adminUrl);
    admin.setUser(username);
    admin.setPassword(password);
    this.databases =
        new AdminDatabases(admin, name -> withDatabase(adminUrl, name), username, password);
  }

  /** Replaces the path of a {@code jdbc:postgresql://host:port/db?params} URL. */
  static String withDatabase(String jdbcUrl, String database) {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
    return "jdbc:postgresql://" + uri.getRawAuthority() + "/" + database + query;
  }

  @Override
  public Database createDatabase() {
    return databases.createUnique();
  }

  @Override
  public Database database(String name) {
    return databases.createOrReuse(name);
  }

  @Override
  public String description() {
    return "external PostgreSQL at " + adminUrl;
  }

  @Override
  public void close() {
    // Not ours to stop.
  }
}
