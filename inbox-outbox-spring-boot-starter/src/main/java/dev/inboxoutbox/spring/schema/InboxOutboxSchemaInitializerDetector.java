package dev.inboxoutbox.spring.schema;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/** Tells Spring Boot that {@link InboxOutboxSchemaInitializer} beans initialize the database. */
final class InboxOutboxSchemaInitializerDetector
    extends AbstractBeansOfTypeDatabaseInitializerDetector {

  @Override
  protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
    return Set.of(InboxOutboxSchemaInitializer.class);
  }
}
