package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.spring.web.IdempotentEndpoint;
import java.net.URI;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /orders} places an order; the starter's {@link IdempotentEndpoint} makes it
 * idempotent under the {@code Idempotency-Key}, on the same inbox scope as the Kafka commands: the
 * claim, the order, its outbox events and the stored answer commit in one transaction. A business
 * rejection (out of stock, unknown sku) is an answer like a success, stored and replayed; a
 * malformed order is thrown, so nothing is stored and a corrected retry may reuse the key.
 */
@RestController
class OrderController {

  private static final String INVALID_ORDER = "urn:inbox-outbox:problem:invalid-order";

  private final DataSource dataSource;
  private final Outbox outbox;
  private final Orders orders;
  private final JsonMapper json;

  OrderController(DataSource dataSource, Outbox outbox, Orders orders, JsonMapper json) {
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.orders = orders;
    this.json = json;
  }

  @PostMapping(
      path = "/orders",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  @IdempotentEndpoint(operation = OrderConsumerApplication.COMMANDS_OPERATION)
  ResponseEntity<String> place(IdempotencyKey key, @RequestBody byte[] body) {
    JsonNode command = ClaimRequest.parseJson(body);
    // The transaction the idempotent endpoint runs in; Orders and Outbox write through it.
    Connection transaction = DataSourceUtils.getConnection(dataSource);
    try {
      List<OutboxEvent> events = new ArrayList<>();
      String placed = orders.place(key.value(), command, events::addAll);
      outbox.appendAll(
          transaction,
          events.stream()
              .map(e -> e.toBuilder().causationId(key.value()).correlationId(key.value()).build())
              .toList());
      return ResponseEntity.created(URI.create("/orders/" + orderId(placed)))
          .contentType(MediaType.APPLICATION_JSON)
          .body(placed);
    } catch (OrderRejected rejected) {
      return ResponseEntity.status(rejected.status())
          .contentType(MediaType.APPLICATION_JSON)
          .body(json.writeValueAsString(new ErrorBody(rejected.code(), rejected.getMessage())));
    } finally {
      DataSourceUtils.releaseConnection(transaction, dataSource);
    }
  }

  @GetMapping(path = "/orders/{orderId}", produces = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<?> get(@PathVariable String orderId) {
    return orders
        .describe(orderId)
        .<ResponseEntity<?>>map(ResponseEntity::ok)
        .orElseGet(
            () ->
                ResponseEntity.of(
                        ProblemDetail.forStatusAndDetail(
                            HttpStatus.NOT_FOUND, "no order " + orderId))
                    .build());
  }

  @ExceptionHandler(PoisonMessageException.class)
  ProblemDetail invalidOrder(PoisonMessageException malformed) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, malformed.getMessage());
    problem.setType(URI.create(INVALID_ORDER));
    problem.setTitle("Invalid order");
    return problem;
  }

  private String orderId(String placed) {
    return json.readTree(placed).get("orderId").asString();
  }
}
