package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.spring.IdempotentConsumers;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The quick start of docs/jpa.md against real PostgreSQL and Kafka: Boot's JpaTransactionManager
 * runs the consumer's batches and the idempotent endpoint's requests, so the claim and the entity
 * the repository saved commit together, also though Hibernate inserts a SEQUENCE-id entity only at
 * the commit, after the handler returned.
 */
class ShipmentApplicationIT {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String ORDERS = "jpa-orders-" + RUN;
  private static final String OPERATION = "plan-shipments";

  /** Idempotency keys whose handler call returned normally, whatever its transaction did after. */
  private static final Set<String> RETURNED = ConcurrentHashMap.newKeySet();

  private static ExampleApplication app;

  /** Not a {@code @Configuration}: the application's component scan must not pick it up. */
  static class HandlerReturns {
    @Bean
    BatchProcessor.Hooks recordHandlerReturns() {
      return new BatchProcessor.Hooks() {
        @Override
        public void handlerReturned(IncomingMessage message) {
          RETURNED.add(message.idempotencyKey().value());
        }
      };
    }
  }

  @BeforeAll
  static void start() {
    app =
        ExampleApplication.start(
            List.of(HandlerReturns.class, ConnectionAtRequestEnd.class),
            "shipments.orders-topic=" + ORDERS);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void bootsTransactionManagerIsHibernatesJpaTransactionManagerWithOpenInView() {
    PlatformTransactionManager transactions =
        app.context().getBean(PlatformTransactionManager.class);

    assertThat(transactions).isInstanceOf(JpaTransactionManager.class);
    JpaTransactionManager jpa = (JpaTransactionManager) transactions;
    assertThat(jpa.getJpaDialect())
        .as("the dialect that binds Hibernate's JDBC connection to the transaction")
        .isInstanceOf(HibernateJpaDialect.class);
    assertThat(jpa.getDataSource()).isSameAs(app.context().getBean(javax.sql.DataSource.class));
    assertThat(app.context().getBeansOfType(OpenEntityManagerInViewInterceptor.class))
        .as("spring.jpa.open-in-view at its default")
        .hasSize(1);
    assertThat(app.context().containsBean("idempotentHandlerAdapter"))
        .as("the web auto-configuration saw the JpaTransactionManager")
        .isTrue();
  }

  @Test
  void aRedeliveredOrderPlansOneShipment() {
    String order = "order-redelivered-" + RUN;
    String key = "key-" + order;
    try (TopicWriter writer = new TopicWriter()) {
      writer.send(order(order, key, 2));
      writer.send(order(order, key, 2));
    }

    await("the order applied once and its redelivery absorbed")
        .atMost(PATIENCE)
        .until(() -> claimed(key) == 1 && stats().duplicates() >= 1);

    assertThat(shipments(order)).isEqualTo(1);
    assertThat(events(order)).as("ShipmentPlanned in the outbox, once").isEqualTo(1);
    assertThat(RETURNED).contains(key);
  }

  @Test
  void anInsertFailingAtCommitRollsBackItsClaimAndDeadLettersItsRecordAlone() {
    String before = "order-before-" + RUN;
    String failing = "order-zero-" + RUN;
    String after = "order-after-" + RUN;
    long fallbacks = stats().batchFallbacks();
    try (TopicReader deadLetters = new TopicReader(ORDERS + ".DLT")) {
      // quantity 0 breaks the CHECK (quantity > 0) only when Hibernate flushes the INSERT: at the
      // commit of the batch, after this record's handler returned and its outcome was recorded.
      // One producer batch, so that the three usually arrive in one poll; what is asserted holds
      // however the consumer's batches fall.
      sendTogether(
          order(before, "key-" + before, 1),
          order(failing, "key-" + failing, 0),
          order(after, "key-" + after, 3));

      List<ConsumerRecord<String, byte[]>> dead =
          deadLetters.readUntil(failing, records -> records.size() == 1, PATIENCE);

      ConsumerRecord<String, byte[]> letter = dead.get(0);
      assertThat(TopicReader.header(letter, DeadLetterReason.Headers.REASON))
          .isEqualTo(DeadLetterReason.HANDLER_ERROR.name());
      assertThat(TopicReader.header(letter, DeadLetterReason.Headers.IDEMPOTENCY_KEY))
          .isEqualTo("key-" + failing);
      assertThat(TopicReader.header(letter, DeadLetterReason.Headers.DETAIL))
          .startsWith("DataIntegrityViolationException")
          .contains("shipment_quantity_check");
    }
    await("the records around the failing one applied")
        .atMost(PATIENCE)
        .until(() -> claimed("key-" + before) == 1 && claimed("key-" + after) == 1);

    assertThat(RETURNED)
        .as("the handler returned before the INSERT failed")
        .contains("key-" + failing);
    assertThat(claimed("key-" + failing)).as("the claim rolled back with the entity").isZero();
    assertThat(shipments(failing)).isZero();
    assertThat(events(failing)).as("its outbox event rolled back too").isZero();
    assertThat(shipments(before)).isEqualTo(1);
    assertThat(shipments(after)).isEqualTo(1);
    assertThat(stats().batchFallbacks())
        .as("the failed commit sent the batch record by record")
        .isGreaterThan(fallbacks);
    assertThat(stats().deadLetters()).containsEntry(DeadLetterReason.HANDLER_ERROR, 1L);
  }

  @Test
  void aRepeatedPostReplaysTheStoredAnswerAndSavesOneShipment() throws Exception {
    String order = "order-http-" + RUN;
    String key = "http-" + UUID.randomUUID();

    HttpResponse<String> first = post(key, order, 4);
    HttpResponse<String> repeat = post(key, order, 4);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).contains("\"orderId\":\"" + order + "\"").contains("\"id\":");
    assertThat(repeat.statusCode()).isEqualTo(201);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(repeat.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(shipments(order)).isEqualTo(1);
    assertThat(Rows.count(app.database(), CLAIMS, "POST /shipments", key)).isEqualTo(1);
  }

  @Test
  void withOpenInViewTheRequestsSessionKeepsItsConnectionPastTheCommitUntilTheRequestEnds()
      throws Exception {
    String key = "http-" + UUID.randomUUID();

    assertThat(post(key, "order-in-view-" + RUN, 1).statusCode()).isEqualTo(201);
    assertThat(ConnectionAtRequestEnd.held(key)).isTrue();

    ConnectionAtRequestEnd.forget(key);
    HttpResponse<String> replay = post(key, "order-in-view-" + RUN, 1);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(ConnectionAtRequestEnd.held(key))
        .as("a replay opens the claim's transaction too")
        .isTrue();
  }

  @Test
  void aPostWhoseInsertFailsAtCommitLeavesNoClaimSoTheKeyRunsAgain() throws Exception {
    String order = "order-http-zero-" + RUN;
    String key = "http-" + UUID.randomUUID();

    HttpResponse<String> first = post(key, order, 0);

    assertThat(first.statusCode())
        .as("the answer held until the commit, which failed")
        .isEqualTo(500);
    assertThat(first.headers().firstValue("Location"))
        .as("the Location of a shipment that was rolled back is withdrawn with the answer")
        .isEmpty();
    assertThat(shipments(order)).isZero();
    assertThat(Rows.count(app.database(), CLAIMS, "POST /shipments", key))
        .as("the claim joined the JPA transaction and rolled back with the INSERT")
        .isZero();

    HttpResponse<String> retry = post(key, order, 0);
    assertThat(retry.statusCode())
        .as("run again, not replayed and not a 409 or 422")
        .isEqualTo(500);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
  }

  private static final String CLAIMS =
      """
      SELECT count(*) FROM inbox WHERE operation = ? AND idempotency_key = ?
      """;

  private HttpResponse<String> post(String key, String order, int quantity) throws Exception {
    return app.postShipment(key, order, quantity);
  }

  private static void sendTogether(RecordBuilder... records) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                DevStack.shared().kafka().bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG,
                "100"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (RecordBuilder record : records) {
        producer.send(record.build());
      }
      producer.flush();
    }
  }

  private static RecordBuilder order(String order, String key, int quantity) {
    return RecordBuilder.to(ORDERS)
        .key(order)
        .idempotencyKey(key)
        .json("{\"orderId\":\"" + order + "\",\"quantity\":" + quantity + "}");
  }

  private static ConsumerStats.Snapshot stats() {
    return app.context().getBean(IdempotentConsumers.class).stats().get(OPERATION).snapshot();
  }

  private static long claimed(String key) {
    return Rows.count(app.database(), CLAIMS, OPERATION, key);
  }

  private static long shipments(String order) {
    return Rows.count(
        app.database(),
        """
        SELECT count(*) FROM shipment WHERE order_id = ?
        """,
        order);
  }

  private static long events(String order) {
    return Rows.count(
        app.database(),
        """
        SELECT count(*) FROM outbox WHERE aggregatetype = 'shipment' AND aggregateid = ?
        """,
        order);
  }
}
