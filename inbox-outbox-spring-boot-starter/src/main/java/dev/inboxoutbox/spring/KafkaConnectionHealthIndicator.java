package dev.inboxoutbox.spring;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the Kafka cluster answers a metadata request within {@link #TIMEOUT}, with the number of
 * brokers it reports and its active controller; DOWN with the error otherwise. The idempotent
 * consumers' indicator only turns DOWN once a batch has failed for a while; this one tells at once
 * that the service cannot reach Kafka, so that an orchestrator (or a chaos run) sees an outage as
 * one. A cluster that lost one broker of three still answers and stays UP: the service can work.
 */
final class KafkaConnectionHealthIndicator extends AbstractHealthIndicator
    implements DisposableBean {

  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final Admin admin;

  /**
   * {@code adminProperties}: the application's Kafka admin settings (bootstrap servers, security).
   */
  KafkaConnectionHealthIndicator(Map<String, Object> adminProperties) {
    super("Kafka connection health check failed");
    Map<String, Object> properties = new HashMap<>(adminProperties);
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    this.admin = Admin.create(properties);
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws Exception {
    DescribeClusterResult cluster =
        admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()));
    Collection<Node> brokers = cluster.nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    Node controller = cluster.controller().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    builder
        .up()
        .withDetail("brokers", brokers.size())
        .withDetail(
            "controller", controller == null || controller.isEmpty() ? -1 : controller.id());
  }

  @Override
  public void destroy() {
    admin.close(Duration.ZERO);
  }
}
