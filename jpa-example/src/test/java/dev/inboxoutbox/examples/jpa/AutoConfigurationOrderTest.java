package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.spring.InboxOutboxAutoConfiguration;
import dev.inboxoutbox.spring.web.InboxOutboxWebAutoConfiguration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.Configurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;

/**
 * The starter's conditions on {@code PlatformTransactionManager} are evaluated after Boot's
 * Hibernate auto-configuration has defined its JpaTransactionManager.
 */
class AutoConfigurationOrderTest {

  @Test
  void theWebAutoConfigurationNamesHibernatesAutoConfigurationAsComingBefore() {
    AutoConfiguration order =
        InboxOutboxWebAutoConfiguration.class.getAnnotation(AutoConfiguration.class);

    // afterName is a string the compiler does not check: it must name the class Boot ships.
    assertThat(order.afterName()).contains(HibernateJpaAutoConfiguration.class.getName());
  }

  @Test
  void bothStarterAutoConfigurationsAreSortedAfterHibernates() {
    List<Class<?>> sorted =
        List.of(
            Configurations.getClasses(
                AutoConfigurations.of(
                    InboxOutboxWebAutoConfiguration.class,
                    InboxOutboxAutoConfiguration.class,
                    HibernateJpaAutoConfiguration.class)));

    assertThat(sorted.indexOf(HibernateJpaAutoConfiguration.class))
        .isLessThan(sorted.indexOf(InboxOutboxAutoConfiguration.class))
        .isLessThan(sorted.indexOf(InboxOutboxWebAutoConfiguration.class));
  }
}
