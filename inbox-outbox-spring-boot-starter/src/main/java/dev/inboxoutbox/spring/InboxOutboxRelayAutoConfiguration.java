package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.PublishedEvent;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.relay.RelaySettings;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The embedded Debezium relay (when {@code inbox-outbox.relay.enabled}), wired only where the
 * application has inbox-outbox-relay-debezium on its classpath. Without it the outbox is left to a
 * relay outside the application (Debezium Server, Kafka Connect: see docs/relay.md). Kept apart
 * from {@link InboxOutboxAutoConfiguration} so that no class of the starter that always loads names
 * a relay type.
 */
@AutoConfiguration(after = InboxOutboxAutoConfiguration.class)
@ConditionalOnClass(OutboxRelay.class)
@ConditionalOnBean(DataSource.class)
public class InboxOutboxRelayAutoConfiguration {

  @Bean
  @ConditionalOnBooleanProperty("inbox-outbox.relay.enabled")
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  OutboxRelay outboxRelay(
      InboxOutboxProperties properties,
      KafkaProperties kafka,
      ObjectProvider<JdbcConnectionDetails> jdbc,
      KafkaConnectionDetails kafkaConnection,
      Environment environment,
      ObjectProvider<RelayListener> listeners,
      ObjectProvider<ObservationRegistry> observations) {
    InboxOutboxProperties.RelayProperties relay = properties.relay();
    // Boot's connection details (properties, or a service connection such as Testcontainers'),
    // so the relay reads the same database and cluster as the rest of the application.
    JdbcConnectionDetails database = jdbc.getIfAvailable(() -> fromProperties(environment));
    RelaySettings.Builder settings =
        RelaySettings.builder()
            .jdbcUrl(firstSet(relay.jdbcUrl(), database.getJdbcUrl()))
            .user(firstSet(relay.username(), database.getUsername()))
            .password(firstSet(relay.password(), database.getPassword()))
            .kafkaBootstrapServers(
                String.join(",", kafkaConnection.getProducer().getBootstrapServers()))
            .slotName(relay.slotName())
            .markPublished(true);
    // What the application leaves unset keeps the relay's own default: null values are skipped.
    PropertyMapper map = PropertyMapper.get();
    map.from(relay::publicationName).to(settings::publicationName);
    map.from(relay::topicReplacement).to(settings::topicReplacement);
    map.from(relay::offsetFlushInterval).to(settings::offsetFlushInterval);
    map.from(relay::pollInterval).to(settings::pollInterval);
    map.from(relay::maxBatchSize).to(settings::maxBatchSize);
    map.from(relay::maxQueueSize).to(settings::maxQueueSize);
    map.from(relay::heartbeatInterval).to(settings::heartbeatInterval);
    map.from(relay::standbyPollInterval).to(settings::standbyPollInterval);
    map.from(relay::restartBackoffMin).to(settings::restartBackoffMin);
    map.from(relay::restartBackoffMax).to(settings::restartBackoffMax);
    kafka
        .buildProducerProperties()
        .forEach(
            (name, value) -> {
              if (!name.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) && value != null) {
                settings.producerProperty(name, value);
              }
            });
    List<RelayListener> relayListeners = listeners.orderedStream().toList();
    OutboxRelay.Builder builder = OutboxRelay.builder(settings.build());
    observations.ifAvailable(builder::observationRegistry);
    return builder
        .listener(
            new RelayListener() {
              @Override
              public void published(List<PublishedEvent> events) {
                relayListeners.forEach(listener -> listener.published(events));
              }

              @Override
              public void handled(BatchTimings timings) {
                relayListeners.forEach(listener -> listener.handled(timings));
              }
            })
        .build();
  }

  @Bean
  @ConditionalOnBean(OutboxRelay.class)
  RelayLifecycle outboxRelayLifecycle(OutboxRelay relay) {
    return new RelayLifecycle(relay);
  }

  /** Without Boot's DataSource auto-configuration (an application's own DataSource bean). */
  private static JdbcConnectionDetails fromProperties(Environment environment) {
    return new JdbcConnectionDetails() {
      @Override
      public String getJdbcUrl() {
        return environment.getProperty("spring.datasource.url");
      }

      @Override
      public String getUsername() {
        return environment.getProperty("spring.datasource.username");
      }

      @Override
      public String getPassword() {
        return environment.getProperty("spring.datasource.password");
      }
    };
  }

  private static String firstSet(String preferred, String fallback) {
    return preferred != null && !preferred.isBlank() ? preferred : fallback;
  }
}
