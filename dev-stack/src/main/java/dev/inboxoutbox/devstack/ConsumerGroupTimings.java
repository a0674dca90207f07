package dev.inboxoutbox.devstack;

import java.util.Map;

/**
 * The broker settings for consumer groups that every broker of the dev stack shares, the in-JVM one
 * and the cluster's: groups form, notice a killed member and hand out assignments in seconds, as
 * tests and chaos runs need, instead of the defaults' tens of seconds.
 */
final class ConsumerGroupTimings {

  static final Map<String, String> BROKER_SETTINGS =
      Map.of(
          "group.initial.rebalance.delay.ms",
          "0",
          // A killed consumer is detected in seconds (the broker's default floor is 6 s).
          "group.min.session.timeout.ms",
          "1000",
          // The consumer group protocol (KIP-848) hands out assignments on heartbeats, 5 s apart
          // by default: an instance joining a group took three of them to get its share.
          "group.consumer.heartbeat.interval.ms",
          "1000",
          "group.consumer.min.heartbeat.interval.ms",
          "1000");

  private ConsumerGroupTimings() {}
}
