package dev.inboxoutbox.spring.schema;

import dev.inboxoutbox.schema.InboxOutboxSchema;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the framework's migrations (history {@code iox_schema_history}, under the migration lock)
 * when the context creates it. A database initializer to Spring Boot ({@link
 * InboxOutboxSchemaInitializerDetector}): beans that use the database, the application's {@code
 * JdbcTemplate}, {@code JdbcClient} and JPA included, are created after it.
 */
public final class InboxOutboxSchemaInitializer implements InitializingBean {

  private final DataSource dataSource;

  public InboxOutboxSchemaInitializer(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public void afterPropertiesSet() {
    InboxOutboxSchema.migrate(dataSource);
  }
}
