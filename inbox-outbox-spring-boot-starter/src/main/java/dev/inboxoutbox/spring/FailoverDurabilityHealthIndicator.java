package dev.inboxoutbox.spring;

import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Whether a commit of this application survives a failover of its database to a standby: only when
 * a synchronous standby has confirmed it ({@code synchronous_standby_names}) before the commit
 * returns ({@code synchronous_commit} {@code on}, {@code remote_apply} or {@code remote_write}).
 * Otherwise a claim and its effect acknowledged before the primary died may be missing on the
 * promoted standby while the Kafka offset that delivered them was committed: the message is not
 * delivered again, and exactly-once becomes at-most-once.
 *
 * <p>Always UP (a database without a standby is a choice, not a fault); the details say {@code
 * commitsSurviveFailover}, {@code synchronousStandbys} (standbys in sync or quorum state now),
 * {@code streamingStandbys}, {@code synchronousStandbyNames} and {@code synchronousCommit} as this
 * application's sessions see them. Reading the standbys' sync state needs {@code pg_monitor} (or
 * {@code pg_read_all_stats}); without it {@code synchronousStandbys} is {@code unknown}.
 */
final class FailoverDurabilityHealthIndicator extends AbstractHealthIndicator {

  /**
   * pg_stat_replication lists logical walsenders too (the relay's Debezium reader, any logical
   * replication subscriber): they are no standby. They are connected to a database, from their
   * start on and before their slot is active; a standby's walsender is not.
   */
  private static final String DURABILITY_SQL =
      """
      WITH standby AS (
        SELECT r.sync_state FROM pg_stat_replication r JOIN pg_stat_activity a USING (pid)
         WHERE a.datname IS NULL)
      SELECT current_setting('synchronous_commit') AS synchronous_commit,
             current_setting('synchronous_standby_names') AS synchronous_standby_names,
             (SELECT count(*) FROM standby) AS streaming,
             (SELECT count(*) FROM standby WHERE sync_state IN ('sync', 'quorum')) AS synchronous,
             (SELECT count(*) FROM standby WHERE sync_state IS NULL) AS hidden
      """;

  private final JdbcClient jdbc;

  FailoverDurabilityHealthIndicator(DataSource dataSource) {
    super("failover durability health check failed");
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Durability durability = jdbc.sql(DURABILITY_SQL).query(Durability.class).single();
    builder.up();
    builder
        .withDetail("commitsSurviveFailover", durability.commitsSurviveFailover())
        .withDetail(
            "synchronousStandbys",
            durability.hidden() > 0 ? "unknown" : (Object) durability.synchronous())
        .withDetail("streamingStandbys", durability.streaming())
        .withDetail("synchronousStandbyNames", durability.synchronousStandbyNames())
        .withDetail("synchronousCommit", durability.synchronousCommit());
  }

  /** One row of {@link #DURABILITY_SQL}. */
  record Durability(
      String synchronousCommit,
      String synchronousStandbyNames,
      long streaming,
      long synchronous,
      long hidden) {

    boolean commitsSurviveFailover() {
      boolean waitsForStandby =
          switch (synchronousCommit) {
            case "on", "remote_apply", "remote_write" -> true;
            default -> false;
          };
      return waitsForStandby && !synchronousStandbyNames.isBlank() && synchronous > 0;
    }
  }
}
