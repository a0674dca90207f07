package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Batches of one service run side by side (one per partition and instance) and update the same
 * stock rows. Each order locks its skus in order, but a batch holds the locks of every order it
 * applied until it commits: two batches taking the same skus in opposite orders deadlock, and
 * PostgreSQL rolls one of them back after {@code deadlock_timeout}, unless each batch locks its
 * rows up front in one order. These tests drive two batches through the service's own handlers,
 * each pausing after its first message until the other has applied its first one too.
 */
class ConcurrentOrderBatchesIT {

  private static ConfigurableApplicationContext app;
  private static KafkaProducer<String, byte[]> deadLetters;
  private static JdbcClient jdbc;

  @BeforeAll
  static void start() {
    app =
        new SpringApplicationBuilder(OrderConsumerApplication.class)
            .properties(
                "iox.dev-stack.database=orders_batches_"
                    + UUID.randomUUID().toString().substring(0, 8))
            // An argument: a default property loses to application.properties' port 8081.
            .run("--server.port=0");
    jdbc = app.getBean(JdbcClient.class);
    deadLetters =
        BatchProcessor.newDeadLetterProducer(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
            "concurrent-order-batches-it");
  }

  @AfterAll
  static void stop() {
    deadLetters.close();
    app.close();
  }

  @Test
  void batchesPlacingOrdersForTheSameSkusInOppositeOrderBothCommit() throws Exception {
    List<ConsumerRecord<String, byte[]>> first =
        List.of(placeOrder("SKU-03", 0, 0), placeOrder("SKU-04", 0, 1));
    List<ConsumerRecord<String, byte[]>> second =
        List.of(placeOrder("SKU-04", 1, 0), placeOrder("SKU-03", 1, 1));

    runSideBySide("orderCommands", first, "orderCommands", second);

    for (var record : List.of(first, second).stream().flatMap(List::stream).toList()) {
      assertThat(ordersPlacedBy(keyOf(record))).isEqualTo(1);
    }
  }

  @Test
  void aBatchReleasingStockAndABatchPlacingOrdersBothCommit() throws Exception {
    String onSku05 = place("SKU-05");
    String onSku06 = place("SKU-06");
    List<ConsumerRecord<String, byte[]>> placing =
        List.of(placeOrder("SKU-06", 2, 0), placeOrder("SKU-05", 2, 1));
    List<ConsumerRecord<String, byte[]>> releasing =
        List.of(paymentFailed(onSku05, 0), paymentFailed(onSku06, 1));

    runSideBySide("orderCommands", placing, "paymentResults", releasing);

    assertThat(statusOf(onSku05)).isEqualTo("PAYMENT_FAILED");
    assertThat(statusOf(onSku06)).isEqualTo("PAYMENT_FAILED");
    for (var record : placing) {
      assertThat(ordersPlacedBy(keyOf(record))).isEqualTo(1);
    }
  }

  /**
   * A batch that locked its stock rows up front checks each order against what the batch's earlier
   * orders and cancellations left, not against what it read before the first one.
   */
  @Test
  void eachOrderOfABatchSeesWhatTheOrdersAndCancellationsBeforeItLeft() throws Exception {
    String earlier = place("SKU-RARE", 20);
    List<ConsumerRecord<String, byte[]>> batch =
        List.of(
            placeOrder("SKU-RARE", 30, 3, 0),
            placeOrder("SKU-RARE", 10, 3, 1),
            cancelOrder(earlier, 3, 2),
            placeOrder("SKU-RARE", 20, 3, 3));

    process(processor("orderCommands", new CountDownLatch(0)), batch);

    assertThat(ordersPlacedBy(keyOf(batch.get(0)))).isEqualTo(1);
    assertThat(ordersPlacedBy(keyOf(batch.get(1)))).as("out of stock").isZero();
    assertThat(statusOf(earlier)).isEqualTo("CANCELLED");
    assertThat(ordersPlacedBy(keyOf(batch.get(3)))).isEqualTo(1);
    assertThat(
            jdbc.sql("SELECT available FROM stock WHERE sku = 'SKU-RARE'")
                .query(Integer.class)
                .single())
        .isZero();
  }

  /**
   * Runs both batches at once, each through the processor of the named consumer definition; each
   * waits after its first message until the other got as far (or three seconds passed, for a batch
   * that waits on the other's locks before its first message). Neither may fail.
   */
  private static void runSideBySide(
      String definitionA,
      List<ConsumerRecord<String, byte[]>> batchA,
      String definitionB,
      List<ConsumerRecord<String, byte[]>> batchB)
      throws Exception {
    CountDownLatch bothApplyingTheirFirst = new CountDownLatch(2);
    BatchProcessor a = processor(definitionA, bothApplyingTheirFirst);
    BatchProcessor b = processor(definitionB, bothApplyingTheirFirst);

    CompletableFuture<Void> runA = CompletableFuture.runAsync(() -> process(a, batchA));
    CompletableFuture<Void> runB = CompletableFuture.runAsync(() -> process(b, batchB));

    CompletableFuture.allOf(runA, runB).get(30, TimeUnit.SECONDS);
    assertThat(a.stats().snapshot().transientFailures() + b.stats().snapshot().transientFailures())
        .isZero();
  }

  private static BatchProcessor processor(String definitionBean, CountDownLatch firstApplied) {
    IdempotentConsumerDefinition definition =
        app.getBean(definitionBean, IdempotentConsumerDefinition.class);
    AtomicBoolean pausedOnce = new AtomicBoolean();
    return BatchProcessor.builder(definition.operation())
        .transactions(app.getBean(TransactionRunner.class))
        .handler(definition.handler())
        .deadLetterProducer(deadLetters)
        .hooks(
            new BatchProcessor.Hooks() {
              @Override
              public void handlerReturned(IncomingMessage message) {
                if (pausedOnce.compareAndSet(false, true)) {
                  firstApplied.countDown();
                  awaitQuietly(firstApplied);
                }
              }
            })
        .build();
  }

  private static void process(
      BatchProcessor processor, List<ConsumerRecord<String, byte[]>> batch) {
    try {
      processor.process(batch);
    } catch (Exception e) {
      throw new AssertionError("the batch did not commit: " + e.getMessage(), e);
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(3, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Places one order alone and returns its id. */
  private static String place(String sku) throws Exception {
    return place(sku, 1);
  }

  private static String place(String sku, int qty) throws Exception {
    ConsumerRecord<String, byte[]> record = placeOrder(sku, qty, 9, 0);
    process(processor("orderCommands", new CountDownLatch(0)), List.of(record));
    return jdbc.sql("SELECT order_id FROM orders WHERE placed_by = :key")
        .param("key", keyOf(record))
        .query(String.class)
        .single();
  }

  private static ConsumerRecord<String, byte[]> placeOrder(String sku, int partition, long offset) {
    return placeOrder(sku, 1, partition, offset);
  }

  private static ConsumerRecord<String, byte[]> placeOrder(
      String sku, int qty, int partition, long offset) {
    String key = UUID.randomUUID().toString();
    return RecordBuilder.to(OrderConsumerApplication.COMMANDS_TOPIC)
        .key("c-" + key)
        .idempotencyKey(key)
        .type("PlaceOrder")
        .json(
            """
            {"customerId":"c-%s","items":[{"sku":"%s","qty":%d,"unitPriceCents":100}]}
            """
                .formatted(key, sku, qty))
        .consumed(partition, offset);
  }

  private static ConsumerRecord<String, byte[]> cancelOrder(
      String orderId, int partition, long offset) {
    return RecordBuilder.to(OrderConsumerApplication.COMMANDS_TOPIC)
        .key(orderId)
        .idempotencyKey(UUID.randomUUID().toString())
        .type("CancelOrder")
        .json("{\"orderId\":\"%s\"}".formatted(orderId))
        .consumed(partition, offset);
  }

  private static ConsumerRecord<String, byte[]> paymentFailed(String orderId, long offset) {
    return RecordBuilder.to("outbox.event.payment-result")
        .key(orderId)
        .idempotencyKey(UUID.randomUUID().toString())
        .type("PaymentFailed")
        .json("{\"orderId\":\"%s\",\"reason\":\"declined\"}".formatted(orderId))
        .consumed(0, offset);
  }

  private static String keyOf(ConsumerRecord<String, byte[]> record) {
    return new String(record.headers().lastHeader("Idempotency-Key").value());
  }

  private static int ordersPlacedBy(String key) {
    return jdbc.sql("SELECT count(*) FROM orders WHERE placed_by = :key")
        .param("key", key)
        .query(Integer.class)
        .single();
  }

  private static String statusOf(String orderId) {
    return jdbc.sql("SELECT status FROM orders WHERE order_id = :orderId")
        .param("orderId", orderId)
        .query(String.class)
        .single();
  }
}
