package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;

/**
 * Two instances of one service sharing a topic's two partitions: the split shows in the log, as
 * Spring Kafka's own containers log it, and in each instance's health details.
 */
@ExtendWith(OutputCaptureExtension.class)
class PartitionAssignmentIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String GROUP = "assignment-orders";

  /**
   * Spring Kafka's listener containers log assignments under their class's logger, here as the
   * test's logback pattern abbreviates it. Spring Boot resets logback when the first application
   * starts, dropping any appender a test attached before; the console output stays.
   */
  private static final String CONTAINER_LOGGER = "o.s.k.l.KafkaMessageListenerContainer";

  private final List<DevStackApplication> apps = new ArrayList<>();
  private CapturedOutput output;
  private String topic;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    IdempotentConsumerDefinition orders() {
      return IdempotentConsumerDefinition.of(
          GROUP, (message, context) -> Outcome.success(), System.getProperty("test.topic"));
    }

    @Bean
    SeenByTheApplication seenByTheApplication() {
      return new SeenByTheApplication();
    }

    /** The application's own rebalance listener, set where an application sets one. */
    @Bean
    ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>>
        listensToRebalances(SeenByTheApplication seen) {
      return container -> container.getContainerProperties().setConsumerRebalanceListener(seen);
    }
  }

  /** Every partition the application's own listener was told of. */
  static final class SeenByTheApplication implements ConsumerRebalanceListener {
    final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      assigned.addAll(partitions);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
  }

  @BeforeEach
  void setUp(CapturedOutput output) throws Exception {
    this.output = output;
    topic = "assignment-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 2, Map.of());
    System.setProperty("test.topic", topic);
  }

  @AfterEach
  void tearDown() {
    apps.forEach(DevStackApplication::close);
  }

  @Test
  void assignmentAndRevocationAreLoggedAndEachInstanceShowsItsPartitionsInHealth()
      throws Exception {
    DevStackApplication first = start();
    String both = "[" + topic + "-0, " + topic + "-1]";
    String bothReversed = "[" + topic + "-1, " + topic + "-0]";
    await("the first instance logs both partitions assigned")
        .atMost(PATIENCE)
        .until(
            () ->
                logged("partitions assigned: " + both)
                    || logged("partitions assigned: " + bothReversed));
    await("the first instance's health shows both partitions")
        .atMost(PATIENCE)
        .until(() -> assignment(first).size() == 2);
    assertThat(assignment(first)).containsExactlyInAnyOrder(topic + "-0", topic + "-1");
    assertThat(first.context().getBean(SeenByTheApplication.class).assigned)
        .as("the application's own rebalance listener still runs")
        .containsExactlyInAnyOrder(new TopicPartition(topic, 0), new TopicPartition(topic, 1));

    DevStackApplication second = start();
    await("the partitions split between the instances")
        .atMost(PATIENCE)
        .until(() -> assignment(first).size() == 1 && assignment(second).size() == 1);
    String moved = assignment(second).get(0);
    assertThat(assignment(first)).doesNotContain(moved);
    // The container records a new partition before its rebalance listener runs, so the health
    // can show the split a moment before the line is written.
    await("the first instance logs the partition it gave up, the second the one it took")
        .atMost(PATIENCE)
        .until(
            () ->
                logged("partitions revoked: [" + moved + "]")
                    && logged("partitions assigned: [" + moved + "]"));

    long revokedBeforeStop = count("partitions revoked: [" + moved + "]");
    second.close();
    apps.remove(second);
    await("the stopped instance logs its revocation, the first takes the partition back")
        .atMost(PATIENCE)
        .until(
            () ->
                count("partitions revoked: [" + moved + "]") > revokedBeforeStop
                    && assignment(first).size() == 2);
  }

  /**
   * Kafka 4's consumer group protocol (KIP-848) assigns on the broker and refuses a client-side
   * assignor: an application that opts in must start, and its instances share the partitions.
   */
  @Test
  void withTheConsumerGroupProtocolTheInstancesStartAndSplitThePartitions() throws Exception {
    String consumerProtocol = "spring.kafka.consumer.properties.group.protocol=consumer";
    DevStackApplication first = start(consumerProtocol);
    await("the first instance gets both partitions")
        .atMost(PATIENCE)
        .until(() -> assignment(first).size() == 2);

    DevStackApplication second = start(consumerProtocol);
    await("the partitions split between the instances")
        .atMost(PATIENCE)
        .until(() -> assignment(first).size() == 1 && assignment(second).size() == 1);
    assertThat(assignment(first)).doesNotContainAnyElementsOf(assignment(second));
  }

  private DevStackApplication start(String... properties) throws Exception {
    DevStackApplication app =
        DevStackApplication.start(App.class, WebApplicationType.NONE, "SELECT 1", properties);
    apps.add(app);
    return app;
  }

  /** The partitions an instance's health details show for the group, over its consumers. */
  @SuppressWarnings("unchecked")
  private static List<String> assignment(DevStackApplication app) {
    Map<String, Object> details =
        (Map<String, Object>)
            app.context()
                .getBean(IdempotentConsumersHealthIndicator.class)
                .health(true)
                .getDetails()
                .get(GROUP);
    assertThat(details).containsEntry("state", "OK").containsKey("assignment");
    Map<String, List<String>> byClient = (Map<String, List<String>>) details.get("assignment");
    return byClient.values().stream().flatMap(List::stream).toList();
  }

  private boolean logged(String line) {
    return count(line) > 0;
  }

  /** INFO lines of the container logger reading {@code group: line}, as Spring Kafka writes. */
  private long count(String line) {
    Pattern written =
        Pattern.compile(
            " INFO .* " + Pattern.quote(CONTAINER_LOGGER + " - " + GROUP + ": " + line) + "$");
    return output.getAll().lines().filter(written.asPredicate()).count();
  }
}
