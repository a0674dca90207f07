package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.webhook.WebhookSignature;
import dev.inboxoutbox.webhook.WebhookSignature.Verification;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /webhooks/provider}: verifies the provider's signature on the raw body, then applies
 * the event through {@link WebhookReceiver} (inbox claim, payment update, outbox event, one
 * transaction) and answers 200 only after the commit. A copy of an event already applied is
 * answered 200 too, so the provider stops sending it; anything the database could not take now is a
 * 503 the provider retries.
 */
@RestController
class WebhookController {

  private static final Logger log = LoggerFactory.getLogger(WebhookController.class);

  private final JsonMapper json;
  private final WebhookSignature signature;
  private final WebhookReceiver receiver;
  private final ObservationRegistry observations;

  WebhookController(
      JsonMapper json,
      WebhookSignature signature,
      WebhookReceiver receiver,
      ObjectProvider<ObservationRegistry> observations) {
    this.json = json;
    this.signature = signature;
    this.receiver = receiver;
    this.observations = observations.getIfAvailable(() -> ObservationRegistry.NOOP);
  }

  @PostMapping("/webhooks/provider")
  ResponseEntity<Map<String, String>> receive(
      @RequestHeader(name = WebhookSignature.HEADER, required = false) String signatureHeader,
      @RequestBody(required = false) byte[] body)
      throws InterruptedException {
    byte[] raw = body == null ? new byte[0] : body;
    // Verified on the bytes as received: parsing first and re-serialising would change them.
    Verification verification = signature.verify(signatureHeader, raw, Instant.now());
    if (!verification.isValid()) {
      log.warn("webhook refused: signature {}", verification);
      return ResponseEntity.status(HttpStatus.UNAUTHORIZED)
          .body(Map.of("error", "invalid_signature", "reason", verification.name()));
    }
    JsonNode event;
    String eventId;
    String eventType;
    try {
      event = json.readTree(raw);
      eventId = IdempotencyKey.of(requiredText(event, "id")).value();
      eventType = requiredText(event, "type");
    } catch (JacksonException | IllegalArgumentException e) {
      // IllegalArgumentException covers a missing field and an id unusable as an idempotency key.
      // Signed by the provider yet unusable: retrying cannot help, and 4xx stops the retries.
      log.warn("signed webhook without id or type: {}", e.getMessage());
      return invalidEvent(e.getMessage());
    }
    WebhookReceiver.Decision decision;
    try {
      decision = receiver.receive(eventId, eventType, event, raw);
    } catch (PoisonMessageException e) {
      log.warn("signed webhook {} cannot be applied: {}", eventId, e.getMessage());
      return invalidEvent(e.getMessage());
    } catch (DataAccessException | TransactionException e) {
      log.warn("webhook {} not applied; the provider will retry: {}", eventId, e.toString());
      return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
          .body(Map.of("error", "not_applied", "message", "retry later"));
    }
    decided(eventId, decision);
    if (decision == WebhookReceiver.Decision.CONFLICT) {
      // The provider never sends one event id with two bodies: nothing is applied, and the answer
      // says why instead of acknowledging an event that was not taken.
      log.error("webhook {} refused: the id was applied before with another body", eventId);
      return ResponseEntity.unprocessableContent()
          .body(
              Map.of(
                  "error",
                  "event_id_reused",
                  "message",
                  "event " + eventId + " was received before with another body"));
    }
    return ResponseEntity.ok(
        Map.of(
            "received",
            eventId,
            "duplicate",
            String.valueOf(decision == WebhookReceiver.Decision.DUPLICATE)));
  }

  /**
   * Tags the request's observation (the HTTP server span, when the application traces) with what
   * the inbox decided, as {@code @IdempotentEndpoint} does: high-cardinality key values reach the
   * span, not the request metrics.
   */
  private void decided(String eventId, WebhookReceiver.Decision decision) {
    Observation request = observations.getCurrentObservation();
    if (request != null) {
      request
          .highCardinalityKeyValue("inbox.operation", ProviderWebhookHandler.OPERATION)
          .highCardinalityKeyValue("inbox.idempotency_key", eventId)
          .highCardinalityKeyValue("inbox.decision", decision.tag());
    }
  }

  private static ResponseEntity<Map<String, String>> invalidEvent(String message) {
    return ResponseEntity.badRequest()
        .body(Map.of("error", "invalid_event", "message", String.valueOf(message)));
  }

  private static String requiredText(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || !value.isString() || value.stringValue().isBlank()) {
      throw new IllegalArgumentException("missing " + field);
    }
    return value.stringValue();
  }
}
