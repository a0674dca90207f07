package dev.inboxoutbox.chaos.extension;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.spring.IdempotentConsumerCustomizer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ChaosExtensionAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ChaosExtensionAutoConfiguration.class));

  @Test
  void crashPointsReachTheConsumerAndTheRelayThroughTheStartersExtensionPoints() {
    runner
        .withPropertyValues(
            "iox.chaos.crash-points.MID_HANDLER=0.25",
            "iox.chaos.crash-points.RELAY_AFTER_PUBLISH=0.5",
            "iox.chaos.arming-file=/tmp/armed")
        .run(
            context -> {
              assertThat(context).hasSingleBean(BatchProcessor.Hooks.class);
              assertThat(context).hasSingleBean(RelayListener.class);
              assertThat(context).doesNotHaveBean(IdempotentConsumerCustomizer.class);
              ChaosExtensionProperties properties = context.getBean(ChaosExtensionProperties.class);
              assertThat(properties.crashPoints())
                  .isEqualTo(
                      Map.of(CrashPoint.MID_HANDLER, 0.25, CrashPoint.RELAY_AFTER_PUBLISH, 0.5));
              assertThat(properties.armingFile()).hasToString("/tmp/armed");
            });
  }

  @Test
  void aProbabilityOutsideZeroToOneStopsTheServiceFromStarting() {
    runner
        .withPropertyValues("iox.chaos.crash-points.MID_HANDLER=1.5")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("[0, 1]"));
  }

  @Test
  void theNegativeControlGivesEveryDeliveryOfTheSameRecordAKeyOfItsOwn() {
    runner
        .withPropertyValues("iox.chaos.dedup-off=true")
        .run(
            context -> {
              ConsumerSettings.Builder settings = ConsumerSettings.builder("orders");
              context.getBean(IdempotentConsumerCustomizer.class).customize("orders", settings);
              KeyExtractor extractor = settings.build().keyExtractor();
              ConsumerRecord<String, byte[]> record =
                  new ConsumerRecord<>("orders", 0, 7, "a", null);
              record.headers().add("Idempotency-Key", "key-1".getBytes(StandardCharsets.UTF_8));

              String first = extractor.extract(record, null);
              String second = extractor.extract(record, null);

              assertThat(first).startsWith("key-1~").isNotEqualTo(second);
            });
  }

  @Test
  void withoutChaosPropertiesNothingChangesTheKeys() {
    runner.run(context -> assertThat(context).doesNotHaveBean(IdempotentConsumerCustomizer.class));
  }
}
