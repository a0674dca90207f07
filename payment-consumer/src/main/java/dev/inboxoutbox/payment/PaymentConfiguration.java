package dev.inboxoutbox.payment;

import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import dev.inboxoutbox.webhook.WebhookSignature;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/** The three consumers of docs/flows.md, the provider client and the webhook endpoint's parts. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(PaymentProperties.class)
class PaymentConfiguration {

  @Bean
  Payments payments(JdbcClient jdbc) {
    return new Payments(jdbc);
  }

  @Bean
  PaymentEvents paymentEvents(JsonMapper json) {
    return new PaymentEvents(json);
  }

  @Bean
  ProviderClient providerClient(
      JsonMapper json,
      PaymentProperties properties,
      ObjectProvider<ObservationRegistry> observations) {
    PaymentProperties.Provider provider = properties.provider();
    if (provider.url() == null) {
      throw new IllegalStateException("payment.provider.url is required (the provider's base URL)");
    }
    return new ProviderClient(
        json,
        provider.url(),
        provider.connectTimeout(),
        provider.requestTimeout(),
        provider.attempts(),
        provider.retryBackoff(),
        observations.getIfAvailable(() -> ObservationRegistry.NOOP));
  }

  @Bean
  WebhookSignature webhookSignature(PaymentProperties properties) {
    String secret = properties.provider().webhookSecret();
    if (secret == null || secret.isBlank()) {
      throw new IllegalStateException(
          "payment.provider.webhook-secret is required to verify webhooks: set PROVIDER_WEBHOOK_SECRET to"
              + " the secret the provider signs with (development mode, spring-boot:test-run, sets the"
              + " simulator's)");
    }
    return new WebhookSignature(secret, properties.provider().webhookTolerance());
  }

  @Bean
  WebhookReceiver webhookReceiver(
      Inbox inbox,
      Outbox outbox,
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      Payments payments,
      PaymentEvents events,
      MeterRegistry meters) {
    return new WebhookReceiver(
        inbox,
        outbox,
        dataSource,
        transactionManager,
        new ProviderWebhookHandler(payments, events),
        meters);
  }

  @Bean
  IdempotentConsumerDefinition paymentRequests(
      Payments payments, PaymentEvents events, PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        PaymentRequestHandler.OPERATION,
        new PaymentRequestHandler(payments, events),
        properties.topics().paymentRequests());
  }

  @Bean
  IdempotentConsumerDefinition paymentCharger(
      Payments payments,
      PaymentEvents events,
      ProviderClient provider,
      PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        ChargeRequestHandler.OPERATION,
        new ChargeRequestHandler(payments, events, provider),
        properties.topics().charges());
  }

  @Bean
  IdempotentConsumerDefinition paymentRefunder(
      Payments payments,
      PaymentEvents events,
      ProviderClient provider,
      PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        RefundRequestHandler.OPERATION,
        new RefundRequestHandler(payments, events, provider),
        properties.topics().refunds());
  }
}
