package dev.inboxoutbox.payment;

import dev.inboxoutbox.provider.WebhookSignature;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import javax.sql.DataSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.DependsOn;

/** The three consumers of docs/flows.md, the provider client and the webhook endpoint's parts. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(PaymentProperties.class)
class PaymentConfiguration {

  @Bean
  PaymentSchema paymentSchema(DataSource dataSource) {
    return PaymentSchema.migrate(dataSource);
  }

  @Bean
  Payments payments() {
    return new Payments();
  }

  @Bean
  ProviderClient providerClient(PaymentProperties properties) {
    PaymentProperties.Provider provider = properties.provider();
    if (provider.url() == null) {
      throw new IllegalStateException("payment.provider.url is required (the provider's base URL)");
    }
    return new ProviderClient(
        provider.url(), provider.connectTimeout(), provider.requestTimeout(), provider.attempts(), provider.retryBackoff());
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

  @Bean(destroyMethod = "close")
  WebhookPublisher webhookPublisher(KafkaProperties kafka, PaymentProperties properties) {
    return new WebhookPublisher(
        kafka.buildProducerProperties(), properties.topics().webhooks(), properties.provider().webhookAckTimeout());
  }

  @Bean
  @DependsOn("paymentSchema")
  IdempotentConsumerDefinition paymentRequests(Payments payments, PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        PaymentRequestHandler.OPERATION, new PaymentRequestHandler(payments), properties.topics().paymentRequests());
  }

  @Bean
  @DependsOn("paymentSchema")
  IdempotentConsumerDefinition paymentCharger(
      Payments payments, ProviderClient provider, PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        ChargeRequestHandler.OPERATION, new ChargeRequestHandler(payments, provider), properties.topics().charges());
  }

  @Bean
  @DependsOn("paymentSchema")
  IdempotentConsumerDefinition paymentWebhooks(Payments payments, PaymentProperties properties) {
    return IdempotentConsumerDefinition.of(
        ProviderWebhookHandler.OPERATION, new ProviderWebhookHandler(payments), properties.topics().webhooks());
  }
}
