package dev.inboxoutbox.spring.schema;

import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the framework's migrations (history {@code iox_schema_history}, under the migration lock)
 * when the context creates it. A database initializer to Spring Boot ({@link
 * InboxOutboxSchemaInitializerDetector}): beans that use the database, the application's {@code
 * JdbcTemplate}, {@code JdbcClient} and JPA included, are created after it. A database that cannot
 * be reached fails the start at once, or after {@code waitForDatabase} ({@link DatabaseWait}).
 */
public final class InboxOutboxSchemaInitializer implements InitializingBean {

  private final DataSource dataSource;
  private final DatabaseWait databaseWait;

  public InboxOutboxSchemaInitializer(DataSource dataSource) {
    this(dataSource, Duration.ZERO);
  }

  public InboxOutboxSchemaInitializer(DataSource dataSource, Duration waitForDatabase) {
    this.dataSource = dataSource;
    this.databaseWait = new DatabaseWait(waitForDatabase);
  }

  @Override
  public void afterPropertiesSet() {
    databaseWait.run(
        "the inbox/outbox schema migration", () -> InboxOutboxSchema.migrate(dataSource));
  }
}
