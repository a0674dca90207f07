package dev.inboxoutbox.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionPolicyTest {

  @Test
  void defaultsAreBatchesOfAThousandSevenDaysOfPublishedOutboxAndNoPause() {
    RetentionPolicy policy = RetentionPolicy.defaults();

    assertThat(policy.batchSize()).isEqualTo(1000);
    assertThat(policy.outboxKeep()).isEqualTo(Duration.ofDays(7));
    assertThat(policy.maxBatchesPerRun()).isEqualTo(1000);
    assertThat(policy.pauseBetweenBatches()).isEqualTo(Duration.ZERO);
  }

  @Test
  void eachWitherChangesOnlyItsOwnValue() {
    RetentionPolicy defaults = RetentionPolicy.defaults();

    assertThat(defaults.withBatchSize(7))
        .isEqualTo(new RetentionPolicy(7, Duration.ofDays(7), 1000, Duration.ZERO));
    assertThat(defaults.withOutboxKeep(Duration.ofHours(1)))
        .isEqualTo(new RetentionPolicy(1000, Duration.ofHours(1), 1000, Duration.ZERO));
    assertThat(defaults.withMaxBatchesPerRun(3))
        .isEqualTo(new RetentionPolicy(1000, Duration.ofDays(7), 3, Duration.ZERO));
    assertThat(defaults.withPauseBetweenBatches(Duration.ofMillis(20)))
        .isEqualTo(new RetentionPolicy(1000, Duration.ofDays(7), 1000, Duration.ofMillis(20)));
    assertThat(defaults).isEqualTo(RetentionPolicy.defaults());
  }

  @Test
  void aBatchSizeMustBePositive() {
    assertThatThrownBy(() -> RetentionPolicy.defaults().withBatchSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention batchSize must be positive; was 0");
    assertThatThrownBy(() -> RetentionPolicy.defaults().withBatchSize(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
  }

  @Test
  void maxBatchesPerRunMustBePositive() {
    assertThatThrownBy(() -> RetentionPolicy.defaults().withMaxBatchesPerRun(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention maxBatchesPerRun must be positive; was 0");
  }

  @Test
  void outboxKeepMayBeZeroButNotNegativeOrMissing() {
    assertThat(RetentionPolicy.defaults().withOutboxKeep(Duration.ZERO).outboxKeep()).isZero();
    assertThatThrownBy(() -> RetentionPolicy.defaults().withOutboxKeep(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention outboxKeep must not be negative; was PT-1S");
    assertThatThrownBy(() -> RetentionPolicy.defaults().withOutboxKeep(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outboxKeep");
  }

  @Test
  void thePauseMayBeZeroButNotNegativeOrMissing() {
    assertThat(
            RetentionPolicy.defaults().withPauseBetweenBatches(Duration.ZERO).pauseBetweenBatches())
        .isZero();
    assertThatThrownBy(
            () -> RetentionPolicy.defaults().withPauseBetweenBatches(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention pauseBetweenBatches must not be negative; was PT-0.001S");
    assertThatThrownBy(() -> RetentionPolicy.defaults().withPauseBetweenBatches(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("pauseBetweenBatches");
  }
}
