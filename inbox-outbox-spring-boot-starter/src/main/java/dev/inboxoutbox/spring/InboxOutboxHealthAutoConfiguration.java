package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The relay's health indicator ({@code /actuator/health/outboxRelay}) where Actuator health is present. */
@AutoConfiguration(after = InboxOutboxAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(OutboxRelay.class)
public class InboxOutboxHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "outboxRelayHealthIndicator")
  RelayHealthIndicator outboxRelayHealthIndicator(OutboxRelay relay) {
    return new RelayHealthIndicator(relay);
  }
}
