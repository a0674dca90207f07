package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of three combined broker-controller processes ({@link KafkaBroker}) for a chaos
 * run: topics get replication factor 3 and {@code min.insync.replicas=2}, so one broker can be
 * SIGKILLed at a time while producers with {@code acks=all} go on, as in production.
 */
public final class KafkaCluster implements AutoCloseable {

  public static final int BROKERS = 3;

  private static final Map<String, String> SETTINGS =
      withConsumerGroupTimings(
          Map.ofEntries(
              Map.entry("num.partitions", "3"),
              Map.entry("default.replication.factor", "3"),
              Map.entry("min.insync.replicas", "2"),
              Map.entry("offsets.topic.replication.factor", "3"),
              Map.entry("offsets.topic.num.partitions", "5"),
              Map.entry("transaction.state.log.replication.factor", "3"),
              Map.entry("transaction.state.log.min.isr", "2"),
              Map.entry("auto.create.topics.enable", "true"),
              Map.entry("unclean.leader.election.enable", "false"),
              // A killed broker is fenced after 3 s instead of 9 s: leadership moves sooner.
              Map.entry("broker.session.timeout.ms", "3000"),
              Map.entry("broker.heartbeat.interval.ms", "1000"),
              Map.entry("num.network.threads", "2"),
              Map.entry("num.io.threads", "4"),
              Map.entry("log.cleaner.enable", "false")));

  private static Map<String, String> withConsumerGroupTimings(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(settings);
    all.putAll(ConsumerGroupTimings.BROKER_SETTINGS);
    return Map.copyOf(all);
  }

  private final List<KafkaBroker> brokers = new ArrayList<>();
  private final List<TcpProxy> proxies;
  private final Admin admin;

  private KafkaCluster(List<KafkaBroker> brokers, List<TcpProxy> proxies) {
    this.brokers.addAll(brokers);
    this.proxies = List.copyOf(proxies);
    this.admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "5000",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                "3000"));
  }

  /**
   * When this JVM runs from {@code iox.jar}, extracts it and trains the brokers' class-data archive
   * unless this build did so before: a broker then starts on about half the CPU. Takes a few
   * seconds once per build; returns whether brokers will start with the archive.
   */
  public static boolean prepareFastStart(Path directory) throws IOException, InterruptedException {
    Optional<ExtractedApplication> application = ChildJvm.extractedApplication();
    if (application.isEmpty()) {
      return false;
    }
    if (application.get().trained(KafkaBrokerMain.class.getName())) {
      return true;
    }
    Path training =
        Files.createTempDirectory(Files.createDirectories(directory), "broker-training");
    int controllerPort = FreePorts.belowEphemeralRange();
    Map<String, String> alone = new HashMap<>(SETTINGS);
    alone.putAll(
        Map.of(
            "default.replication.factor", "1",
            "min.insync.replicas", "1",
            "offsets.topic.replication.factor", "1",
            "transaction.state.log.replication.factor", "1",
            "transaction.state.log.min.isr", "1"));
    new KafkaBroker(
            1,
            FreePorts.belowEphemeralRange(),
            controllerPort,
            Optional.empty(),
            "1@127.0.0.1:" + controllerPort,
            Uuid.randomUuid().toString(),
            alone,
            training)
        .trainClassDataArchive(application.get());
    return true;
  }

  /**
   * Starts the brokers' processes; {@link #awaitReady} waits until they form the cluster. With
   * {@code behindProxies} each broker also listens for clients that reach it through a {@link
   * TcpProxy} of its own ({@link #proxiedBootstrapServers}), so network faults can hit the links
   * between the services and Kafka.
   */
  public static KafkaCluster start(Path directory, boolean behindProxies) throws IOException {
    Files.createDirectories(directory);
    try {
      prepareFastStart(directory);
    } catch (IOException trainingFailed) {
      // The brokers start without the archive, on more CPU; the training log is in directory.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while preparing the brokers' start", e);
    }
    String clusterId = Uuid.randomUuid().toString();
    int[] ports = new int[BROKERS];
    int[] controllerPorts = new int[BROKERS];
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < BROKERS; i++) {
      ports[i] = FreePorts.belowEphemeralRange();
      controllerPorts[i] = FreePorts.belowEphemeralRange();
      voters
          .append(i == 0 ? "" : ",")
          .append(i + 1)
          .append("@127.0.0.1:")
          .append(controllerPorts[i]);
    }
    List<KafkaBroker> brokers = new ArrayList<>();
    List<TcpProxy> proxies = new ArrayList<>();
    for (int i = 0; i < BROKERS; i++) {
      Optional<TcpProxy> proxy =
          behindProxies
              ? Optional.of(
                  new TcpProxy(
                      "kafka-" + (i + 1),
                      new InetSocketAddress("127.0.0.1", FreePorts.belowEphemeralRange())))
              : Optional.empty();
      proxy.ifPresent(proxies::add);
      brokers.add(
          new KafkaBroker(
              i + 1,
              ports[i],
              controllerPorts[i],
              proxy,
              voters.toString(),
              clusterId,
              SETTINGS,
              directory));
    }
    KafkaCluster cluster = new KafkaCluster(brokers, proxies);
    try {
      for (KafkaBroker broker : brokers) {
        broker.start();
      }
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  public String bootstrapServers() {
    return String.join(",", brokers.stream().map(KafkaBroker::address).toList());
  }

  /** The brokers through their proxies; the direct addresses without {@code behindProxies}. */
  public String proxiedBootstrapServers() {
    return proxies.isEmpty()
        ? bootstrapServers()
        : String.join(",", proxies.stream().map(TcpProxy::hostAndPort).toList());
  }

  /** One per broker, in front of the listener the services use; none without proxies. */
  public List<TcpProxy> proxies() {
    return proxies;
  }

  public String description() {
    return BROKERS
        + "-broker KRaft Kafka (one process each, replication factor 3, min.insync.replicas 2) at "
        + bootstrapServers();
  }

  /** The brokers' processes now: a restarted broker's new one, none before its first start. */
  public List<ProcessHandle> brokerProcesses() {
    return brokers.stream().flatMap(broker -> broker.process().stream()).toList();
  }

  List<KafkaBroker> brokers() {
    return List.copyOf(brokers);
  }

  /** Waits until every broker is registered with the controllers. */
  public void awaitReady(Duration timeout) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      try {
        if (admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).size() == BROKERS) {
          return;
        }
      } catch (ExecutionException | TimeoutException notYet) {
        // brokers still starting
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "Kafka cluster not ready within " + timeout + "; see the broker logs");
      }
      for (KafkaBroker broker : brokers) {
        if (!broker.alive()) {
          throw new IllegalStateException(
              "broker " + broker.nodeId() + " exited during start-up; see its log");
        }
      }
      Thread.sleep(200);
    }
  }

  /**
   * The broker leading the partitions that carry the most records (log end offsets summed per
   * leader, over the run's topics): killing it moves the most traffic. A random live broker when
   * the cluster cannot be asked.
   */
  public KafkaBroker busiestLeader(Random random) {
    List<KafkaBroker> alive = brokers.stream().filter(KafkaBroker::alive).toList();
    try {
      Map<Integer, Long> recordsLed = recordsLedPerBroker();
      return alive.stream()
          .max(
              (a, b) ->
                  Long.compare(
                      recordsLed.getOrDefault(a.nodeId(), 0L),
                      recordsLed.getOrDefault(b.nodeId(), 0L)))
          .orElseThrow();
    } catch (ExecutionException | TimeoutException e) {
      return alive.get(random.nextInt(alive.size()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return alive.get(random.nextInt(alive.size()));
    }
  }

  private Map<Integer, Long> recordsLedPerBroker()
      throws ExecutionException, InterruptedException, TimeoutException {
    List<String> topics =
        admin.listTopics(new ListTopicsOptions()).names().get(5, TimeUnit.SECONDS).stream()
            .toList();
    Map<String, TopicDescription> descriptions =
        admin.describeTopics(topics).allTopicNames().get(5, TimeUnit.SECONDS);
    Map<TopicPartition, Integer> leaders = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicDescription topic : descriptions.values()) {
      for (TopicPartitionInfo partition : topic.partitions()) {
        if (partition.leader() != null) {
          TopicPartition key = new TopicPartition(topic.name(), partition.partition());
          leaders.put(key, partition.leader().id());
          latest.put(key, OffsetSpec.latest());
        }
      }
    }
    Map<Integer, Long> recordsLed = new LinkedHashMap<>();
    admin
        .listOffsets(latest)
        .all()
        .get(5, TimeUnit.SECONDS)
        .forEach(
            (partition, end) -> recordsLed.merge(leaders.get(partition), end.offset(), Long::sum));
    return recordsLed;
  }

  /** Waits until the broker listens again after a restart. */
  public static void awaitListening(KafkaBroker broker, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (!broker.listening()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "broker " + broker.nodeId() + " not listening " + timeout + " after its restart");
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
    brokers.forEach(KafkaBroker::kill);
    for (TcpProxy proxy : proxies) {
      try {
        proxy.close();
      } catch (IOException e) {
        // Closing the run: a proxy that cannot close its listener holds only a port.
      }
    }
  }
}
