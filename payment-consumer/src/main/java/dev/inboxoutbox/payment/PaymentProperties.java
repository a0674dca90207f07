package dev.inboxoutbox.payment;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code payment.*}.
 *
 * @param provider the payment provider and its webhooks
 * @param topics the topics read and written; defaults are those of docs/flows.md
 */
@ConfigurationProperties("payment")
public record PaymentProperties(@DefaultValue Provider provider, @DefaultValue Topics topics) {

  /**
   * @param url base URL of the provider's API, e.g. {@code http://localhost:8090}
   * @param webhookSecret the secret the provider signs webhooks with
   * @param webhookTolerance how far a webhook's signed timestamp may be from now
   * @param connectTimeout connecting to the provider
   * @param requestTimeout one charge or refund request, from sending to the full response
   * @param attempts attempts per charge or refund within one delivery before the batch is retried
   *     later
   * @param retryBackoff pause after the first failed attempt, doubling
   */
  public record Provider(
      URI url,
      String webhookSecret,
      @DefaultValue("300s") Duration webhookTolerance,
      @DefaultValue("2s") Duration connectTimeout,
      @DefaultValue("5s") Duration requestTimeout,
      @DefaultValue("3") int attempts,
      @DefaultValue("200ms") Duration retryBackoff) {}

  /**
   * @param paymentRequests {@code PaymentRequested} from the order service's relay
   * @param charges {@code ChargeRequested} from this service's relay; must match the relay's
   *     routing
   * @param refunds {@code RefundRequested} from this service's relay; must match the relay's
   *     routing
   */
  public record Topics(
      @DefaultValue("outbox.event.payment") String paymentRequests,
      @DefaultValue("outbox.event.charge") String charges,
      @DefaultValue("outbox.event.refund") String refunds) {}
}
