package dev.inboxoutbox.orders;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.InboxEntry;
import dev.inboxoutbox.inbox.InboxStatus;
import dev.inboxoutbox.inbox.InvalidIdempotencyKeyException;
import dev.inboxoutbox.inbox.InvalidPayloadException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.RequestHash;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /orders} with an {@code Idempotency-Key}, on the same inbox scope as the Kafka
 * commands (IETF Idempotency-Key draft semantics): 201 and the order the first time; the stored
 * response again for a repeat ({@code Idempotent-Replayed: true}); 422 for the key reused with
 * another body; 409 with {@code Retry-After} while the first request is still in flight; 400 for a
 * missing or invalid key or body.
 */
@RestController
class OrderController {

  private final DataSource dataSource;
  private final Inbox inbox;
  private final Outbox outbox;
  private final Orders orders;
  private final JsonMapper json;

  OrderController(DataSource dataSource, Inbox inbox, Outbox outbox, Orders orders, JsonMapper json) {
    this.dataSource = dataSource;
    this.inbox = inbox;
    this.outbox = outbox;
    this.orders = orders;
    this.json = json;
  }

  @PostMapping(path = "/orders", produces = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> place(
      @RequestHeader(name = IdempotencyKey.HEADER, required = false) String keyHeader,
      @RequestBody(required = false) byte[] body) throws SQLException {
    IdempotencyKey key;
    JsonNode command;
    RequestHash hash;
    try {
      key = IdempotencyKey.fromHttpHeader(keyHeader);
    } catch (InvalidIdempotencyKeyException e) {
      return error(HttpStatus.BAD_REQUEST, "invalid_idempotency_key", "Idempotency-Key header: " + e.getMessage());
    }
    try {
      command = RequestHash.parseJson(body);
      hash = RequestHash.ofJsonTree(command);
    } catch (InvalidPayloadException e) {
      return error(HttpStatus.BAD_REQUEST, "invalid_body", e.getMessage());
    }
    Scope scope = Scope.of(OrderConsumerApplication.COMMANDS_OPERATION);
    try (Connection tx = dataSource.getConnection()) {
      tx.setAutoCommit(false);
      try {
        ClaimResult claim = inbox.claim(tx, scope, key, hash);
        ResponseEntity<String> response;
        if (claim instanceof ClaimResult.New fresh) {
          Outcome outcome = placeOrder(tx, command, key);
          inbox.complete(tx, fresh, outcome);
          response = respond(outcome, false);
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
          response = replay(duplicate.original());
        } else {
          response =
              error(HttpStatus.UNPROCESSABLE_ENTITY, "idempotency_key_reused",
                  "this Idempotency-Key was used for a different request body");
        }
        tx.commit();
        return response;
      } catch (PoisonMessageException malformed) {
        tx.rollback();
        return error(HttpStatus.BAD_REQUEST, "invalid_order", malformed.getMessage());
      } catch (SQLException | RuntimeException e) {
        tx.rollback();
        throw e;
      }
    }
  }

  @GetMapping(path = "/orders/{orderId}", produces = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> get(@PathVariable String orderId) {
    return orders.describe(orderId)
        .map(ResponseEntity::ok)
        .orElseGet(() -> error(HttpStatus.NOT_FOUND, "unknown_order", "no order " + orderId));
  }

  private Outcome placeOrder(Connection tx, JsonNode command, IdempotencyKey key) throws SQLException {
    List<OutboxEvent> events = new ArrayList<>();
    try {
      String placed = orders.place(key.value(), command, events::add);
      outbox.appendAll(tx, events.stream().map(e -> e.withCausationId(key.value()).withCorrelationId(key.value())).toList());
      return Outcome.success(placed).withCode(201);
    } catch (OrderRejected rejected) {
      return rejected.outcome(json);
    }
  }

  private static ResponseEntity<String> replay(InboxEntry original) {
    if (original.status() == InboxStatus.PROCESSING) {
      return ResponseEntity.status(HttpStatus.CONFLICT)
          .header("Retry-After", "1")
          .contentType(MediaType.APPLICATION_JSON)
          .body("{\"error\":\"request_in_progress\",\"message\":\"the first request with this key is still being processed\"}");
    }
    return original
        .outcome()
        .map(outcome -> respond(outcome, true))
        .orElseGet(
            () ->
                ResponseEntity.ok()
                    .header("Idempotent-Replayed", "true")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body("{\"replayed\":true,\"detail\":\"outcome body pruned by retention\"}"));
  }

  private static ResponseEntity<String> respond(Outcome outcome, boolean replayed) {
    int status = outcome.code().orElse(outcome.isRejection() ? 409 : 200);
    ResponseEntity.BodyBuilder builder = ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON);
    if (replayed) {
      builder.header("Idempotent-Replayed", "true");
    }
    return builder.body(outcome.body().orElse("{}"));
  }

  private ResponseEntity<String> error(HttpStatus status, String code, String message) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(json.writeValueAsString(new ErrorBody(code, String.valueOf(message))));
  }
}
