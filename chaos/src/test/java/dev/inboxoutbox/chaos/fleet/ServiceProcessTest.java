package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the fleet reads in a service's health: whether its consumers hold partitions. */
class ServiceProcessTest {

  @Test
  void anInstanceHoldsPartitionsWhenOneConsumerHasOne() {
    assertThat(
            ServiceProcess.holdsPartitions(
                """
                {"components":{"idempotentConsumers":{"details":{\
                "order-commands":{"state":"OK","assignment":{"consumer-order-commands-1":[]}},\
                "order-payments":{"state":"OK","assignment":\
                {"consumer-order-payments-2":["outbox.event.payment-result-2"]}}},\
                "status":"UP"}},"status":"UP"}"""))
        .isTrue();
  }

  @Test
  void anInstanceWhoseConsumersHaveNoPartitionYetHoldsNone() {
    assertThat(
            ServiceProcess.holdsPartitions(
                """
                {"components":{"idempotentConsumers":{"details":{\
                "order-commands":{"state":"OK","assignment":{"consumer-order-commands-1":[]}},\
                "order-payments":{"state":"OK","assignment":{}}},\
                "status":"UP"}},"status":"UP"}"""))
        .isFalse();
    assertThat(ServiceProcess.holdsPartitions("{\"status\":\"UP\"}"))
        .as("health without details")
        .isFalse();
  }
}
