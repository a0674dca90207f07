package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What the fleet reads in a service's health: whether it is up, whether its consumers hold
 * partitions.
 */
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

  @Test
  void aHealthIsUpByItsOverallStatusNotByAComponentsStatus() {
    String databaseDown =
        """
        {"components":{"db":{"status":"DOWN"},"idempotentConsumers":{"details":{\
        "order-commands":{"state":"OK","assignment":{"consumer-order-commands-1":["orders.commands-0"]}}},\
        "status":"UP"},"ping":{"status":"UP"}},"status":"DOWN"}""";

    assertThat(ServiceProcess.up(databaseDown)).isFalse();
    assertThat(ServiceProcess.holdsPartitions(databaseDown))
        .as("the consumers keep their partitions while the database is down")
        .isTrue();
    assertThat(ServiceProcess.up("{\"components\":{\"db\":{\"status\":\"UP\"}},\"status\":\"UP\"}"))
        .isTrue();
    assertThat(ServiceProcess.up("not json")).isFalse();
  }
}
