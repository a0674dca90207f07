package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.retention.RetentionCleaner;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Health indicators where Actuator health is present: the relay's ({@code
 * /actuator/health/outboxRelay}), the idempotent consumers' ({@code
 * /actuator/health/idempotentConsumers}), retention's ({@code /actuator/health/retention}), the
 * connection to Kafka ({@code /actuator/health/kafkaConnection}) and whether the database's commits
 * survive a failover ({@code /actuator/health/failoverDurability}).
 */
@AutoConfiguration(
    after = {InboxOutboxAutoConfiguration.class, InboxOutboxRelayAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
public class InboxOutboxHealthAutoConfiguration {

  @Bean
  @ConditionalOnBean(IdempotentConsumers.class)
  @ConditionalOnMissingBean(name = "idempotentConsumersHealthIndicator")
  IdempotentConsumersHealthIndicator idempotentConsumersHealthIndicator(
      IdempotentConsumers consumers) {
    return new IdempotentConsumersHealthIndicator(consumers);
  }

  /** Only where this application runs the cleanup: another instance's backlog is not its own. */
  @Bean
  @ConditionalOnBean({RetentionCleaner.class, RetentionTotals.class})
  @ConditionalOnMissingBean(name = "retentionHealthIndicator")
  RetentionHealthIndicator retentionHealthIndicator(
      RetentionTotals totals, InboxOutboxProperties properties) {
    return new RetentionHealthIndicator(totals, properties.retention().overdueThreshold());
  }

  @Bean
  @ConditionalOnBean({IdempotentConsumers.class, KafkaAdmin.class})
  @ConditionalOnMissingBean(name = "kafkaConnectionHealthIndicator")
  KafkaConnectionHealthIndicator kafkaConnectionHealthIndicator(KafkaAdmin kafkaAdmin) {
    return new KafkaConnectionHealthIndicator(kafkaAdmin.getConfigurationProperties());
  }

  /** Where the inbox and the outbox are written: whether their commits survive a failover. */
  @Bean
  @ConditionalOnBean(DataSource.class)
  @ConditionalOnMissingBean(name = "failoverDurabilityHealthIndicator")
  FailoverDurabilityHealthIndicator failoverDurabilityHealthIndicator(DataSource dataSource) {
    return new FailoverDurabilityHealthIndicator(dataSource);
  }

  /** Only with inbox-outbox-relay-debezium on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(OutboxRelay.class)
  static class RelayHealth {

    @Bean
    @ConditionalOnBean(OutboxRelay.class)
    @ConditionalOnMissingBean(name = "outboxRelayHealthIndicator")
    RelayHealthIndicator outboxRelayHealthIndicator(OutboxRelay relay) {
      return new RelayHealthIndicator(relay);
    }
  }
}
