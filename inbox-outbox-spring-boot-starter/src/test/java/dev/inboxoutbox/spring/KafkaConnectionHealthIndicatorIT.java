package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.DevStack;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class KafkaConnectionHealthIndicatorIT {

  @Test
  void isUpWithTheBrokerCountWhileTheClusterAnswers() {
    KafkaConnectionHealthIndicator indicator =
        indicator(DevStack.shared().kafka().bootstrapServers());
    try {
      Health health = indicator.health(true);

      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("brokers", 1);
    } finally {
      indicator.destroy();
    }
  }

  @Test
  void isDownWithTheErrorWhenNoBrokerAnswers() {
    KafkaConnectionHealthIndicator indicator = indicator("127.0.0.1:1");
    try {
      Health health = indicator.health(true);

      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsKey("error");
    } finally {
      indicator.destroy();
    }
  }

  private static KafkaConnectionHealthIndicator indicator(String bootstrap) {
    return new KafkaConnectionHealthIndicator(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }
}
