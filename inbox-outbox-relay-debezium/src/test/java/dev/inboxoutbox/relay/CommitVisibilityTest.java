package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class CommitVisibilityTest {

  @Test
  void transactionsFromXmaxOnAndThoseRunningAreNotVisible() {
    assertThat(CommitVisibility.invisible(Set.of(700L, 705L, 731L, 732L), 731, Set.of(705L)))
        .containsExactlyInAnyOrder(705L, 731L, 732L);
  }

  @Test
  void idsBeforeTheWrapAroundAreBehindAnXmaxAfterIt() {
    long beforeWrap = 4_294_967_290L;
    assertThat(CommitVisibility.invisible(Set.of(beforeWrap, 3L, 9L), 5, Set.of(3L)))
        .containsExactlyInAnyOrder(3L, 9L);
    assertThat(CommitVisibility.invisible(Set.of(beforeWrap), beforeWrap, Set.of()))
        .containsExactly(beforeWrap);
  }
}
