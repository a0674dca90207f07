package dev.inboxoutbox.spring.schema;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.sql.init.dependency.DatabaseInitializerDetector;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * The detector is package-private: Spring Boot still finds it through META-INF/spring.factories and
 * makes it, so beans that use the database keep waiting for the framework's migration.
 */
class InboxOutboxSchemaInitializerDetectorTest {

  @Test
  void springFactoriesMakeTheDetectorThoughItIsNotPublic() {
    assertThat(
            SpringFactoriesLoader.forDefaultResourceLocation()
                .load(DatabaseInitializerDetector.class))
        .hasAtLeastOneElementOfType(InboxOutboxSchemaInitializerDetector.class);
  }
}
