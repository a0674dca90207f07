package dev.inboxoutbox.chaos.extension;

import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.spring.IdempotentConsumerCustomizer;
import java.util.UUID;

/**
 * The negative control: every delivery gets a key of its own (the real key plus a random suffix),
 * so the inbox sees each redelivery, client retry and conflicting reuse as new and the handler
 * applies it again. A chaos run's verifier must then fail.
 */
final class NewKeyPerDelivery implements IdempotentConsumerCustomizer {

  @Override
  public void customize(String operation, ConsumerSettings.Builder settings) {
    settings.keyExtractor(decorate(settings.keyExtractor()));
  }

  static KeyExtractor decorate(KeyExtractor real) {
    return (record, payload) -> {
      String key = real.extract(record, payload);
      // A record without a key stays without one: it is a dead letter either way.
      return key == null ? null : key + "~" + UUID.randomUUID();
    };
  }
}
