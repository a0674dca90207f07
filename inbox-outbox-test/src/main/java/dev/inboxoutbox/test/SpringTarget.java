package dev.inboxoutbox.test;

import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import dev.inboxoutbox.spring.IdempotentConsumers;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * The listener containers the starter runs for the application's {@code
 * IdempotentConsumerDefinition} beans. A simulated crash ends a container's consumer thread with
 * the {@link SimulatedCrash} error (spring-kafka stops a container on an {@link Error}); the kit
 * then stops every container and starts them anew, so fresh Kafka consumers join the group and read
 * from its last committed offsets. What spring-kafka logs about the crash at ERROR is dropped with
 * logback ({@link QuietSimulatedCrashes}); the kit logs the crash at INFO.
 */
final class SpringTarget implements Target {

  private final ApplicationContext context;
  private final ScenarioHooks hooks;
  private final IdempotentConsumers consumers;

  SpringTarget(ApplicationContext context) {
    this.context = context;
    try {
      this.hooks = context.getBean(ScenarioHooks.class);
    } catch (NoSuchBeanDefinitionException e) {
      throw new IllegalStateException(
          "the application context has no test kit hooks: add"
              + " @Import(ExactlyOnceTestConfiguration.class) to the test",
          e);
    }
    try {
      this.consumers = context.getBean(IdempotentConsumers.class);
    } catch (NoSuchBeanDefinitionException e) {
      throw new IllegalStateException(
          "the application context runs no idempotent consumers: declare an"
              + " IdempotentConsumerDefinition bean for the handler under test",
          e);
    }
    if (logbackPresent()) {
      QuietSimulatedCrashes.install();
    }
  }

  /** Whether logback is on the class path; with another logging backend nothing is filtered. */
  private static boolean logbackPresent() {
    try {
      Class.forName(
          "ch.qos.logback.classic.turbo.TurboFilter", false, SpringTarget.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  @Override
  public ScenarioHooks hooks() {
    return hooks;
  }

  @Override
  public String bootstrapServers() {
    KafkaConnectionDetails connection =
        context.getBeanProvider(KafkaConnectionDetails.class).getIfAvailable();
    if (connection != null) {
      return String.join(",", connection.getProducer().getBootstrapServers());
    }
    return context.getEnvironment().getProperty("spring.kafka.bootstrap-servers");
  }

  @Override
  public void start(int instances) {
    // The application's containers, as many as its concurrency says: the kit adds none.
    if (!consumers.isRunning()) {
      consumers.start();
    }
  }

  /** The listener threads per consumer, as the starter sets them. */
  @Override
  public int raceConsumers() {
    Environment environment = context.getEnvironment();
    Integer concurrency =
        environment.getProperty(
            "inbox-outbox.consumer.concurrency",
            Integer.class,
            environment.getProperty("spring.kafka.listener.concurrency", Integer.class, 1));
    return Math.max(1, concurrency);
  }

  @Override
  public long transactionSuspensions(String topic) {
    Map<String, ConsumerStats> stats = consumers.stats();
    long total = 0;
    for (IdempotentConsumerDefinition definition :
        context.getBeanProvider(IdempotentConsumerDefinition.class)) {
      ConsumerStats consumer = stats.get(definition.operation());
      if (definition.topics().contains(topic) && consumer != null) {
        total += consumer.snapshot().transactionSuspensions();
      }
    }
    return total;
  }

  @Override
  public void restart() {
    consumers.stop();
    hooks.revive();
    consumers.start();
  }

  @Override
  public void stop() {
    // The containers belong to the application context, which stops them when it closes.
  }

  /** spring-kafka logs a failing container itself; the listener never ends its loop otherwise. */
  @Override
  public List<Throwable> drainLoopFailures() {
    return List.of();
  }

  @Override
  public void close() {
    // as stop()
  }
}
