package dev.inboxoutbox.payment;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** What the service refuses to start without. */
class PaymentConsumerStartupIT {

  @Test
  void withoutAWebhookSecretTheServiceRefusesToStart() throws Exception {
    // A default secret would be public: a webhook forged with it would capture an uncharged
    // payment.
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(PaymentConsumerApplication.class)
                      .run(
                          "--server.port=0",
                          "--spring.datasource.url=" + database.jdbcUrl(),
                          "--spring.datasource.username=" + database.username(),
                          "--spring.datasource.password=" + database.password(),
                          "--spring.kafka.bootstrap-servers="
                              + DevStack.shared().kafka().bootstrapServers())
                      .close())
          .hasStackTraceContaining("payment.provider.webhook-secret")
          .hasStackTraceContaining("PROVIDER_WEBHOOK_SECRET");
    }
  }
}
