package dev.inboxoutbox.orders.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The load's cancels against a real broker: a share of them waits until the provider has charged
 * the order they cancel, so that a run always has cancelled orders whose money has to go back,
 * however slow the pipeline is.
 */
class LoadProducerIT {

  private static final int ORDERS = 40;

  @Test
  void holdsBackSomeCancelsUntilTheirOrderIsCharged() throws Exception {
    Map<String, Long> firstAskedAt = new ConcurrentHashMap<>();
    Map<String, Long> chargedAt = new ConcurrentHashMap<>();
    Set<String> neverCharged = ConcurrentHashMap.newKeySet();
    LoadProducer.Sent sent;
    try (LoadProducer load =
        new LoadProducer(DevStack.shared().kafka().bootstrapServers(), 7, 0, 0, 0, 1.0)) {
      load.cancelSomeOnceCharged(
          placeKeys -> {
            long now = System.currentTimeMillis();
            placeKeys.forEach(key -> firstAskedAt.putIfAbsent(key, now));
            if (neverCharged.isEmpty() && !placeKeys.isEmpty()) {
              neverCharged.add(placeKeys.iterator().next());
            }
            // A charge takes a second; one order is never charged.
            Set<String> charged =
                placeKeys.stream()
                    .filter(key -> !neverCharged.contains(key))
                    .filter(key -> firstAskedAt.get(key) <= now - 1_000)
                    .collect(Collectors.toSet());
            charged.forEach(key -> chargedAt.putIfAbsent(key, now));
            return charged;
          },
          Duration.ofSeconds(3));
      load.send(ORDERS, 100);
      load.sendHeldCancels();
      sent = load.sent();
    }

    Set<String> ours = Set.copyOf(sent.validKeys());
    List<ConsumerRecord<String, byte[]>> cancels;
    try (TopicReader reader = new TopicReader(LoadProducer.TOPIC)) {
      cancels =
          reader.readUntil(seen -> cancelsOf(seen, ours).size() == ORDERS, Duration.ofSeconds(30));
    }
    Map<String, Long> cancelSentAt =
        cancelsOf(cancels, ours).stream()
            .collect(Collectors.toMap(LoadProducerIT::placedBy, ConsumerRecord::timestamp));

    assertThat(cancelSentAt).as("every order is cancelled once, none lost").hasSize(ORDERS);
    assertThat(chargedAt).as("the cancels held back for a charged order").isNotEmpty();
    chargedAt.forEach(
        (order, charged) ->
            assertThat(cancelSentAt.get(order))
                .as("the cancel of %s, charged at %d", order, charged)
                .isGreaterThanOrEqualTo(charged));
    assertThat(neverCharged).as("the order never charged").hasSize(1);
    String uncharged = neverCharged.iterator().next();
    assertThat(cancelSentAt)
        .as("a cancel whose order is never charged still goes, once its patience runs out")
        .containsKey(uncharged);
    assertThat(cancelSentAt.get(uncharged) - firstAskedAt.get(uncharged))
        .isGreaterThanOrEqualTo(2_000);
  }

  private static List<ConsumerRecord<String, byte[]>> cancelsOf(
      List<ConsumerRecord<String, byte[]>> records, Set<String> ourOrders) {
    return records.stream()
        .filter(record -> "CancelOrder".equals(header(record, "type")))
        .filter(record -> ourOrders.contains(placedBy(record)))
        .toList();
  }

  private static String placedBy(ConsumerRecord<String, byte[]> cancel) {
    String json = new String(cancel.value(), StandardCharsets.UTF_8);
    return json.replaceAll(".*\"placedBy\":\"([^\"]+)\".*", "$1");
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    var header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
