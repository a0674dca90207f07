package dev.inboxoutbox.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class RetentionCleanerBuilderTest {

  @Test
  void defaultsAreBatchesOfAThousandSevenDaysOfPublishedOutboxHalfAMinutePerRunAndNoPause() {
    assertThat(RetentionCleaner.Builder.DEFAULT_BATCH_SIZE).isEqualTo(1000);
    assertThat(RetentionCleaner.Builder.DEFAULT_OUTBOX_KEEP).isEqualTo(Duration.ofDays(7));
    assertThat(RetentionCleaner.Builder.DEFAULT_RUN_BUDGET).isEqualTo(Duration.ofSeconds(30));
    assertThat(RetentionCleaner.Builder.DEFAULT_PAUSE_BETWEEN_BATCHES).isEqualTo(Duration.ZERO);
  }

  @Test
  void aDataSourceIsRequired() {
    assertThatThrownBy(() -> RetentionCleaner.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dataSource");
  }

  @Test
  void aBatchSizeMustBePositive() {
    assertThatThrownBy(() -> builder().batchSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention batchSize must be positive; was 0");
    assertThatThrownBy(() -> builder().batchSize(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
  }

  @Test
  void theRunBudgetMustBePositive() {
    assertThatThrownBy(() -> builder().runBudget(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention runBudget must be positive; was PT0S");
    assertThatThrownBy(() -> builder().runBudget(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("runBudget");
    assertThatThrownBy(() -> builder().runBudget(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("runBudget");
  }

  @Test
  void outboxKeepMayBeZeroButNotNegativeOrMissing() {
    assertThat(builder().outboxKeep(Duration.ZERO).build()).isNotNull();
    assertThatThrownBy(() -> builder().outboxKeep(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention outboxKeep must not be negative; was PT-1S");
    assertThatThrownBy(() -> builder().outboxKeep(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outboxKeep");
  }

  @Test
  void thePauseMayBeZeroButNotNegativeOrMissing() {
    assertThat(builder().pauseBetweenBatches(Duration.ZERO).build()).isNotNull();
    assertThatThrownBy(() -> builder().pauseBetweenBatches(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention pauseBetweenBatches must not be negative; was PT-0.001S");
    assertThatThrownBy(() -> builder().pauseBetweenBatches(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("pauseBetweenBatches");
  }

  private static RetentionCleaner.Builder builder() {
    return RetentionCleaner.builder(new NoDatabase());
  }

  /** The builder never connects; a stand-in that refuses to. */
  private static final class NoDatabase implements DataSource {
    @Override
    public Connection getConnection() {
      throw new UnsupportedOperationException("the builder must not connect");
    }

    @Override
    public Connection getConnection(String username, String password) {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
