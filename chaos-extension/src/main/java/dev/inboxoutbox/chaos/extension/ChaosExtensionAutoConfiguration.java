package dev.inboxoutbox.chaos.extension;

import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.spring.InboxOutboxAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.listener.BatchInterceptor;

/**
 * Registers the chaos run's faults through the starter's extension points: the crash points as
 * {@code BatchProcessor.Hooks} and a {@code RelayListener}, the negative controls as an {@code
 * IdempotentConsumerCustomizer} and a Spring Kafka {@code BatchInterceptor}, the inbox-price
 * baseline as an {@code Inbox} bean that is off. Active only in a service whose class path the
 * {@code iox chaos} command extended with this jar.
 */
@AutoConfiguration(before = InboxOutboxAutoConfiguration.class)
@EnableConfigurationProperties(ChaosExtensionProperties.class)
public class ChaosExtensionAutoConfiguration {

  @Bean
  CrashHooks ioxChaosCrashHooks(ChaosExtensionProperties properties) {
    Path armingFile = properties.armingFile();
    return new CrashHooks(
        CrashInjector.halting(
            properties.crashPoints(), () -> armingFile == null || Files.exists(armingFile)));
  }

  @Bean
  @ConditionalOnBooleanProperty("iox.chaos.dedup-off")
  NewKeyPerDelivery ioxChaosNewKeyPerDelivery() {
    return new NewKeyPerDelivery();
  }

  /**
   * The baseline of {@code iox chaos --inbox-price}: the starter backs off from its own inbox for
   * this one, so the consumers and the webhook endpoint claim nothing.
   */
  @Bean
  @ConditionalOnBooleanProperty("iox.chaos.inbox-off")
  Inbox ioxChaosInboxOff() {
    return Inbox.off();
  }

  /** Boot's listener container factory hands its containers this batch interceptor. */
  @Bean
  @ConditionalOnBooleanProperty("iox.chaos.reorder-batches")
  BatchInterceptor<Object, Object> ioxChaosReversedBatches() {
    return new ReversedBatches();
  }

  /** The refund control; the controls are exclusive, so at most one batch interceptor is set. */
  @Bean
  @ConditionalOnBooleanProperty("iox.chaos.drop-refund-requests")
  BatchInterceptor<Object, Object> ioxChaosDroppedRefundRequests() {
    return new DroppedRefundRequests();
  }
}
