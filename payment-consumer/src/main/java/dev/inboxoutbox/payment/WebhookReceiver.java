package dev.inboxoutbox.payment;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Applies a verified provider webhook exactly once, in one transaction of the application's
 * transaction manager: the provider's event id is claimed in the inbox under {@code
 * payment-webhooks}, {@link ProviderWebhookHandler} moves the payment on and appends its next event
 * to the outbox, and the outcome is stored with the claim. A copy of an event already applied finds
 * its claim and changes nothing; the same id with another body is a conflict and changes nothing
 * either. A failure rolls everything back, claim included, so the provider's retry applies it.
 */
final class WebhookReceiver {

  /** What the inbox decided for one delivery. */
  enum Decision {
    NEW,
    DUPLICATE,
    CONFLICT;

    /** The value of the {@code decision} tag of {@code payment.webhooks}. */
    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final Scope SCOPE = Scope.of(ProviderWebhookHandler.OPERATION);

  private final Inbox inbox;
  private final Outbox outbox;
  private final DataSource dataSource;
  private final TransactionTemplate transactions;
  private final ProviderWebhookHandler handler;
  private final Map<Decision, Counter> deliveries = new EnumMap<>(Decision.class);

  WebhookReceiver(
      Inbox inbox,
      Outbox outbox,
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      ProviderWebhookHandler handler,
      MeterRegistry meters) {
    this.inbox = inbox;
    this.outbox = outbox;
    this.dataSource = dataSource;
    this.transactions = new TransactionTemplate(transactionManager);
    this.handler = handler;
    for (Decision decision : Decision.values()) {
      deliveries.put(
          decision,
          Counter.builder("payment.webhooks")
              .description("verified provider webhook deliveries by the inbox's decision")
              .tag("decision", decision.tag())
              .register(meters));
    }
  }

  /**
   * Claims {@code eventId} and, if it is new, applies the event; returns the inbox's decision once
   * the transaction has committed (or rolled back, for a repeat).
   *
   * @param body the event as received: its canonical JSON is the claim's request hash, so a copy
   *     signed again (another signature header) is still the same request
   * @throws dev.inboxoutbox.consumer.PoisonMessageException when the event can never be applied
   * @throws org.springframework.dao.DataAccessException when the database cannot take it now
   */
  Decision receive(String eventId, String type, JsonNode event, byte[] body) {
    ClaimRequest claim = ClaimRequest.ofJson(SCOPE, IdempotencyKey.of(eventId), body);
    Decision decision =
        transactions.execute(
            status -> {
              Connection connection = DataSourceUtils.getConnection(dataSource);
              try {
                // Presumed a bare success, as the consumers' batches are: the usual event costs
                // one statement, and only a rejection corrects its row.
                ClaimResult result =
                    inbox.claimAllPresumingSuccess(connection, List.of(claim)).get(0);
                if (!(result instanceof ClaimResult.New fresh)) {
                  status.setRollbackOnly(); // nothing was written
                  return result instanceof ClaimResult.Conflict
                      ? Decision.CONFLICT
                      : Decision.DUPLICATE;
                }
                Outcome outcome =
                    handler.handle(
                        eventId,
                        type,
                        event,
                        next -> outbox.append(connection, causedBy(next, eventId)));
                inbox.correctPresumedSuccesses(
                    connection, List.of(Inbox.Completion.of(fresh, outcome)));
                return Decision.NEW;
              } catch (SQLException e) {
                throw new UncategorizedSQLException("applying webhook " + eventId, null, e);
              } finally {
                DataSourceUtils.releaseConnection(connection, dataSource);
              }
            });
    deliveries.get(decision).increment();
    return decision;
  }

  /** The event that caused {@code next} is the webhook: its id is the causation and correlation. */
  private static OutboxEvent causedBy(OutboxEvent next, String eventId) {
    OutboxEvent.Builder caused = next.toBuilder();
    if (next.causationId().isEmpty()) {
      caused.causationId(eventId);
    }
    if (next.correlationId().isEmpty()) {
      caused.correlationId(eventId);
    }
    return caused.build();
  }
}
