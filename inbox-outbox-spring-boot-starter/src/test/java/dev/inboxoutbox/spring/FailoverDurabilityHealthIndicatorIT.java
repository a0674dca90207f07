package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.ReplicatedPostgresServer;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class FailoverDurabilityHealthIndicatorIT {

  @Test
  void aDatabaseWithoutAStandbyDoesNotKeepCommitsThroughAFailover() {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      Health health = new FailoverDurabilityHealthIndicator(database.dataSource()).health(true);

      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails())
          .containsEntry("commitsSurviveFailover", false)
          .containsEntry("streamingStandbys", 0L)
          .containsEntry("synchronousStandbys", 0L);
    }
  }

  @Test
  void commitsSurviveOnlyWhenASynchronousStandbyConfirmsThemBeforeTheyReturn() throws SQLException {
    try (ReplicatedPostgresServer pair =
            ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
        Database database = pair.createDatabase()) {
      FailoverDurabilityHealthIndicator indicator =
          new FailoverDurabilityHealthIndicator(database.dataSource());
      assertThat(indicator.health(true).getDetails())
          .as("an asynchronous standby")
          .containsEntry("commitsSurviveFailover", false)
          .containsEntry("streamingStandbys", 1L);

      pair.synchronousStandby(true);
      assertThat(indicator.health(true).getDetails())
          .as("a synchronous standby, but commits that return before the WAL is flushed")
          .containsEntry("synchronousStandbys", 1L)
          .containsEntry("synchronousCommit", "off")
          .containsEntry("commitsSurviveFailover", false);

      database.commitsSurviveServerCrashes(); // synchronous_commit = on for the database
      assertThat(indicator.health(true).getDetails())
          .containsEntry("synchronousCommit", "on")
          .containsEntry("commitsSurviveFailover", true);
    }
  }
}
