package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class OrderCountsTest {

  @Test
  void whatTheDatabaseAnswersIsTheSample() {
    assertThat(OrderCounts.read(() -> new OrderCounts(1234L, 1200L, 7L)))
        .isEqualTo(new OrderCounts(1234L, 1200L, 7L));
  }

  /** PostgreSQL down: the counts are unknown, neither -1 nor 0. */
  @Test
  void aReadTheDatabaseCannotAnswerIsUnknown() {
    OrderCounts counts =
        OrderCounts.read(
            () -> {
              throw new SQLException("Connection to localhost:5432 refused", "08001");
            });

    assertThat(counts.orders()).isNull();
    assertThat(counts.settled()).isNull();
    assertThat(counts.rejected()).isNull();
  }
}
