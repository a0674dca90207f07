package dev.inboxoutbox.payment;

import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.webhook.WebhookSignature;
import dev.inboxoutbox.webhook.WebhookSignature.Verification;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /webhooks/provider}: verifies the provider's signature on the raw body, then hands
 * the event to Kafka and answers 200 only after the acknowledgement. The endpoint writes nothing to
 * the database: deduplication and the state change happen in the {@code payment-webhooks} consumer,
 * where the inbox claim and the update share a transaction.
 */
@RestController
class WebhookController {

  private static final Logger log = LoggerFactory.getLogger(WebhookController.class);

  private final JsonMapper json;
  private final WebhookSignature signature;
  private final WebhookPublisher publisher;

  WebhookController(JsonMapper json, WebhookSignature signature, WebhookPublisher publisher) {
    this.json = json;
    this.signature = signature;
    this.publisher = publisher;
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
    String eventId;
    String eventType;
    String paymentId;
    try {
      JsonNode event = json.readTree(raw);
      eventId = IdempotencyKey.of(requiredText(event, "id")).value();
      eventType = requiredText(event, "type");
      paymentId = requiredText(event == null ? null : event.get("data"), "paymentId");
    } catch (JacksonException | IllegalArgumentException e) {
      // IllegalArgumentException covers a missing field and an id unusable as an idempotency key.
      // Signed by the provider yet unusable: retrying cannot help, and 4xx stops the retries.
      log.warn("signed webhook without id, type or data.paymentId: {}", e.getMessage());
      return ResponseEntity.badRequest()
          .body(Map.of("error", "invalid_event", "message", String.valueOf(e.getMessage())));
    }
    try {
      publisher.publish(paymentId, eventId, eventType, raw);
    } catch (WebhookPublisher.TooLargeException e) {
      // Signed, but no retry will ever fit: 413 ends the provider's retries instead of a 503 loop.
      log.error("webhook {} refused: {}", eventId, e.getMessage());
      return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE)
          .body(Map.of("error", "too_large", "message", e.getMessage()));
    } catch (WebhookPublisher.NotAcknowledgedException e) {
      log.warn("webhook {} not stored; the provider will retry: {}", eventId, e.getMessage());
      return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
          .body(Map.of("error", "not_stored", "message", "retry later"));
    }
    return ResponseEntity.ok(Map.of("received", eventId));
  }

  private static String requiredText(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || !value.isString() || value.stringValue().isBlank()) {
      throw new IllegalArgumentException("missing " + field);
    }
    return value.stringValue();
  }
}
