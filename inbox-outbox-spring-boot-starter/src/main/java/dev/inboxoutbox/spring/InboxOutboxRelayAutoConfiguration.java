package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.PublishedEvent;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.relay.RelaySettings;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
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
      ObjectProvider<RelayListener> listeners) {
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
            .publicationName(relay.publicationName())
            .topicReplacement(relay.topicReplacement())
            .offsetFlushInterval(relay.offsetFlushInterval())
            .pollInterval(relay.pollInterval())
            .maxBatchSize(relay.maxBatchSize())
            .maxQueueSize(relay.maxQueueSize())
            .heartbeatInterval(relay.heartbeatInterval())
            .standbyPollInterval(relay.standbyPollInterval())
            .restartBackoff(relay.restartBackoffMin(), relay.restartBackoffMax())
            .markPublished(true);
    kafka
        .buildProducerProperties()
        .forEach(
            (name, value) -> {
              if (!name.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) && value != null) {
                settings.producerProperty(name, value);
              }
            });
    List<RelayListener> relayListeners = listeners.orderedStream().toList();
    return new OutboxRelay(
        settings.build(),
        new RelayListener() {
          @Override
          public void published(List<PublishedEvent> events) {
            relayListeners.forEach(listener -> listener.published(events));
          }

          @Override
          public void handled(BatchTimings timings) {
            relayListeners.forEach(listener -> listener.handled(timings));
          }
        });
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
