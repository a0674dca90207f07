package dev.inboxoutbox.chaos.extension;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.spring.IdempotentConsumerCustomizer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.listener.BatchInterceptor;

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
  void theInboxPriceBaselineRegistersAnInboxThatIsOffAndNothingElse() {
    runner
        .withPropertyValues("iox.chaos.inbox-off=true")
        .run(
            context -> {
              assertThat(context.getBean(Inbox.class).deduplicates()).isFalse();
              assertThat(context).doesNotHaveBean(IdempotentConsumerCustomizer.class);
              assertThat(context).doesNotHaveBean(BatchInterceptor.class);
            });
    runner.run(context -> assertThat(context).doesNotHaveBean(Inbox.class));
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
  void theOrderingControlHandsEachPartitionsRecordsOverLastFirst() {
    runner
        .withPropertyValues("iox.chaos.reorder-batches=true")
        .run(
            context -> {
              @SuppressWarnings("unchecked")
              BatchInterceptor<Object, Object> interceptor =
                  context.getBean(BatchInterceptor.class);
              TopicPartition a = new TopicPartition("orders", 0);
              TopicPartition b = new TopicPartition("orders", 1);
              ConsumerRecords<Object, Object> polled =
                  new ConsumerRecords<>(
                      Map.of(
                          a,
                          List.of(
                              new ConsumerRecord<>("orders", 0, 7, "k", "place"),
                              new ConsumerRecord<>("orders", 0, 8, "k", "cancel")),
                          b,
                          List.of(new ConsumerRecord<>("orders", 1, 3, "j", "only"))),
                      Map.of(a, new OffsetAndMetadata(9), b, new OffsetAndMetadata(4)));

              ConsumerRecords<Object, Object> handed = interceptor.intercept(polled, null);

              assertThat(handed.records(a))
                  .extracting(ConsumerRecord::offset)
                  .containsExactly(8L, 7L);
              assertThat(handed.records(b)).extracting(ConsumerRecord::offset).containsExactly(3L);
              assertThat(handed.nextOffsets()).isEqualTo(polled.nextOffsets());
            });
  }

  @Test
  void theRefundControlTakesEveryRefundRequestOutOfItsBatch() {
    runner
        .withPropertyValues("iox.chaos.drop-refund-requests=true")
        .run(
            context -> {
              @SuppressWarnings("unchecked")
              BatchInterceptor<Object, Object> interceptor =
                  context.getBean(BatchInterceptor.class);
              TopicPartition partition = new TopicPartition("outbox.event.refund", 0);
              ConsumerRecord<Object, Object> refund =
                  new ConsumerRecord<>("outbox.event.refund", 0, 4, "pay-o-1", "refund");
              refund.headers().add("type", "RefundRequested".getBytes(StandardCharsets.UTF_8));
              ConsumerRecord<Object, Object> other =
                  new ConsumerRecord<>("outbox.event.refund", 0, 5, "pay-o-2", "other");
              other.headers().add("type", "SomethingElse".getBytes(StandardCharsets.UTF_8));
              ConsumerRecords<Object, Object> polled =
                  new ConsumerRecords<>(
                      Map.of(partition, List.of(refund, other)),
                      Map.of(partition, new OffsetAndMetadata(6)));

              ConsumerRecords<Object, Object> handed = interceptor.intercept(polled, null);

              assertThat(handed.records(partition))
                  .extracting(ConsumerRecord::offset)
                  .containsExactly(5L);
              assertThat(handed.nextOffsets()).isEqualTo(polled.nextOffsets());
            });
  }

  @Test
  void withoutChaosPropertiesNothingChangesTheKeys() {
    runner.run(context -> assertThat(context).doesNotHaveBean(IdempotentConsumerCustomizer.class));
  }

  @Test
  void withoutChaosPropertiesNothingReordersBatches() {
    runner.run(context -> assertThat(context).doesNotHaveBean(BatchInterceptor.class));
  }
}
