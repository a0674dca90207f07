package dev.inboxoutbox.devstack;

/** A running PostgreSQL server that hands out fresh databases. */
public interface PostgresServer extends AutoCloseable {

  /** Creates an empty database with a unique name; closing it drops it. */
  Database createDatabase();

  /** Creates (or reuses, when it exists) a database with the given name, which survives close. */
  Database database(String name);

  /** Where the server is, for logs: "embedded PostgreSQL on port 5432", "external ...". */
  String description();

  @Override
  void close();
}
