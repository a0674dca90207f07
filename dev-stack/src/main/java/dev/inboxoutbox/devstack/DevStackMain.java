package dev.inboxoutbox.devstack;

/**
 * Runs the dev stack on fixed ports until interrupted, so services started by hand can share it:
 * PostgreSQL on 15432 and Kafka on 19092 unless {@code IOX_POSTGRES_PORT}/{@code IOX_KAFKA_PORT}
 * say otherwise. Prints the database URL and bootstrap address.
 */
public final class DevStackMain {

  private DevStackMain() {}

  public static void main(String[] args) throws InterruptedException {
    DevStackSettings settings = DevStackSettings.fromEnvironment();
    if (settings.postgresPort() == 0) {
      settings = settings.withPostgresPort(15432);
    }
    if (settings.kafkaPort() == 0) {
      settings = settings.withKafkaPort(19092);
    }
    String databaseName = args.length > 0 ? args[0] : "iox";
    try (DevStack stack = DevStack.start(settings)) {
      Database database = stack.postgres().database(databaseName);
      System.out.println("IOX_JDBC_URL=" + database.jdbcUrl());
      System.out.println("IOX_JDBC_USER=" + database.username());
      System.out.println("IOX_KAFKA_BOOTSTRAP=" + stack.kafka().bootstrapServers());
      System.out.println("dev stack running; Ctrl-C stops it");
      StopSignal.await();
    }
  }
}
