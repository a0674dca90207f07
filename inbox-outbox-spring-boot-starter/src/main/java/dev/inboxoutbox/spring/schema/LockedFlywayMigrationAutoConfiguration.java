package dev.inboxoutbox.spring.schema;

import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Runs the application's own Flyway migration ({@code spring.flyway.*}) under {@link
 * InboxOutboxSchema#migrate(Flyway)}: without it, instances starting together on a new database can
 * fail with "Unable to baseline schema history table ... as it already exists, and is empty",
 * because Flyway decides to create or to baseline its history table before it locks anything. The
 * lock is a PostgreSQL advisory lock: like the rest of the framework, PostgreSQL only. An
 * application that declares its own {@link FlywayMigrationStrategy} keeps it.
 */
@AutoConfiguration(before = FlywayAutoConfiguration.class)
@ConditionalOnClass({Flyway.class, FlywayMigrationStrategy.class})
public class LockedFlywayMigrationAutoConfiguration {

  /** Waits for an unreachable database as the framework's own migration does. */
  @Bean
  @ConditionalOnMissingBean
  FlywayMigrationStrategy lockedFlywayMigration(Environment environment) {
    DatabaseWait databaseWait =
        new DatabaseWait(
            Binder.get(environment)
                .bind("inbox-outbox.schema.wait-for-database", Duration.class)
                .orElse(Duration.ZERO));
    return flyway ->
        databaseWait.run(
            "the application's Flyway migration", () -> InboxOutboxSchema.migrate(flyway));
  }
}
