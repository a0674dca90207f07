package dev.inboxoutbox.chaos.verify;

import static dev.inboxoutbox.chaos.verify.OrderPerAggregate.ORDER_EVENT_STEP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.verify.OrderPerAggregate.Finding;
import dev.inboxoutbox.chaos.verify.OrderPerAggregate.Relayed;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OrderPerAggregateTest {

  @Test
  void eventsInCommitOrderWithRepeatsPass() {
    Finding finding =
        OrderPerAggregate.check(
            List.of(
                new Relayed("o-1", "e1", "OrderPlaced"),
                new Relayed("o-2", "e3", "OrderPlaced"),
                new Relayed("o-1", "e2", "OrderPaymentFailed"),
                // at-least-once: a repeat of the first event after the second is no reordering
                new Relayed("o-1", "e1", "OrderPlaced"),
                new Relayed("o-1", "e4", "OrderCancelled"),
                new Relayed("o-2", "e5", "OrderPaid")),
            ORDER_EVENT_STEP);

    assertThat(finding.aggregates()).isEqualTo(2);
    assertThat(finding.outOfOrder()).isZero();
  }

  /** The negative control for the relay's side: a relay that publishes a later event first. */
  @Test
  void aLaterEventWhoseFirstCopyComesFirstIsOutOfOrder() {
    Finding finding =
        OrderPerAggregate.check(
            List.of(
                new Relayed("o-1", "e2", "OrderCancelled"),
                new Relayed("o-1", "e1", "OrderPlaced"),
                new Relayed("o-2", "e3", "OrderPlaced"),
                new Relayed("o-2", "e4", "OrderPaid"),
                new Relayed("o-2", "e3", "OrderPlaced")),
            ORDER_EVENT_STEP);

    assertThat(finding.outOfOrder()).isEqualTo(1);
    assertThat(finding.example()).contains("o-1: OrderCancelled -> OrderPlaced");
  }

  @Test
  void twoEventsOfTheSameStepAreOutOfOrder() {
    Finding finding =
        OrderPerAggregate.check(
            List.of(
                new Relayed("o-1", "e1", "OrderPlaced"), new Relayed("o-1", "e2", "OrderPlaced")),
            ORDER_EVENT_STEP);

    assertThat(finding.outOfOrder()).isEqualTo(1);
  }

  @Test
  void aCancelThatFoundNoOrderCountsOnlyWhenItsOrderWasPlaced() {
    Map<String, String> cancels =
        Map.of("cancel-1", "place-1", "cancel-2", "place-2", "cancel-3", "place-3");
    Set<String> notFound = Set.of("cancel-1", "cancel-2");
    // place-2 was rejected (out of stock): no order, so "no such order" is the right answer.
    Set<String> placed = Set.of("place-1", "place-3");

    assertThat(OrderPerAggregate.cancelsBeforeTheirOrder(cancels, notFound, placed)).isEqualTo(1);
  }
}
