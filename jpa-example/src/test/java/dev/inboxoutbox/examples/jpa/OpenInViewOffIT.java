package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.testing.jdbc.Rows;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

/**
 * {@code @IdempotentEndpoint} with {@code spring.jpa.open-in-view=false}: the endpoint's
 * transaction opens its own EntityManager and closes it at the commit; the claim still joins the
 * entity's transaction.
 */
class OpenInViewOffIT {

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String CLAIMS =
      """
      SELECT count(*) FROM inbox WHERE operation = 'POST /shipments' AND idempotency_key = ?
      """;
  private static final String SHIPMENTS =
      """
      SELECT count(*) FROM shipment WHERE order_id = ?
      """;

  private static ExampleApplication app;

  @BeforeAll
  static void start() {
    app =
        ExampleApplication.start(
            List.of(ConnectionAtRequestEnd.class),
            "spring.jpa.open-in-view=false",
            "shipments.orders-topic=jpa-no-view-orders-" + RUN);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aRepeatedPostReplaysAndTheConnectionIsReturnedAtTheCommit() throws Exception {
    assertThat(app.context().getBeansOfType(OpenEntityManagerInViewInterceptor.class)).isEmpty();
    String order = "order-" + RUN;
    String key = "http-" + UUID.randomUUID();

    HttpResponse<String> first = app.postShipment(key, order, 2);
    assertThat(ConnectionAtRequestEnd.held(key))
        .as("no session bound to the request at its end")
        .isFalse();
    HttpResponse<String> repeat = app.postShipment(key, order, 2);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(repeat.statusCode()).isEqualTo(201);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(Rows.count(app.database(), SHIPMENTS, order)).isEqualTo(1);
    assertThat(Rows.count(app.database(), CLAIMS, key)).isEqualTo(1);
  }

  @Test
  void aPostWhoseInsertFailsAtCommitLeavesNeitherRowNorClaim() throws Exception {
    String order = "order-zero-" + RUN;
    String key = "http-" + UUID.randomUUID();

    assertThat(app.postShipment(key, order, 0).statusCode()).isEqualTo(500);

    assertThat(Rows.count(app.database(), SHIPMENTS, order)).isZero();
    assertThat(Rows.count(app.database(), CLAIMS, key)).isZero();
  }
}
