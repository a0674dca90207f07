package dev.inboxoutbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Figure;
import dev.inboxoutbox.cli.BenchFigures.Target;
import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerStats.Stage;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.inbox.Outcome;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Consumer throughput over the same records on the same stack, with the same handler (one effect
 * row per record, one transaction per poll): the inbox consumer against the same loop without an
 * inbox, at 1 partition / 1 thread and at 3 partitions / 3 threads with one statement per record,
 * and at 1 partition / 1 thread with the handler's writes batched (one multi-row statement per
 * batch: {@link MessageHandler#beforeBatch} in the inbox consumer, the same statement per poll
 * without it). One warm-up run of each, then {@code repeat} runs in alternating order, so neither
 * side profits from a warmer JVM or database. A run is timed from the first record a poll returns
 * to the commit of the last one, so joining the group is not part of it; where that time went,
 * stage by stage, is printed per shape and kept as detail figures ({@link ConsumerStages}). Every
 * run has its own consumer group and inbox scope, so the inbox sees new keys each time. The naive
 * read-then-write consumer (a transaction and an offset commit per record) runs once, on part of
 * the records, as the pattern to avoid.
 */
final class ConsumerBench {

  /** The target: the inbox consumer at least 0.85x the loop without it, in every shape. */
  static final double TARGET_RATIO = 0.85;

  private static final String PART = "consumer";
  private static final int NAIVE_RECORDS = 2_000;

  private static final String CREATE_EFFECTS =
      """
      CREATE TABLE IF NOT EXISTS effects (run text NOT NULL, key text NOT NULL, amount int NOT NULL)
      """;

  private static final String INSERT_EFFECT =
      """
      INSERT INTO effects (run, key, amount) VALUES (?, ?, 1)
      """;

  /** The batched handler's one statement: every effect of a batch. */
  private static final String INSERT_EFFECTS =
      """
      INSERT INTO effects (run, key, amount) SELECT ?, unnest(?::text[]), 1
      """;

  /** Partitions (one consumer thread each) and whether the handler batches its writes. */
  record Shape(int partitions, boolean batchedWrites) {
    String name() {
      return partitions + "p/" + partitions + "t" + (batchedWrites ? " batched writes" : "");
    }
  }

  /**
   * A topic with the run's records, how many distinct keys they hold, and each partition's end
   * offset: a run is done once every partition's records up to it are.
   */
  record Topic(String name, int partitions, int distinct, Map<TopicPartition, Long> endOffsets) {}

  /**
   * Done on an inbox consumer's own thread once a batch's transaction has committed, before its
   * offsets are: where a test makes a member leave the group with its last batch uncommitted to
   * Kafka, so that the partition's next owner reads that batch again.
   */
  interface Disturbance {
    Disturbance NONE = (consumer, records) -> {};

    void batchCommitted(IdempotentConsumer consumer, List<ConsumerRecord<String, byte[]>> records);
  }

  private final Database db;
  private final String bootstrap;
  private final int messages;
  private final int repeat;
  private final BenchFigures figures;
  private final PrintStream out;

  ConsumerBench(
      Database db,
      String bootstrap,
      int messages,
      int repeat,
      BenchFigures figures,
      PrintStream out) {
    this.db = db;
    this.bootstrap = bootstrap;
    this.messages = messages;
    this.repeat = repeat;
    this.figures = figures;
    this.out = out;
  }

  void run() throws Exception {
    createTables();
    Topic single = topic(1);
    Topic three = topic(3);
    Figure singleBaseline = shape(new Shape(1, false), single);
    shape(new Shape(3, false), three);
    shape(new Shape(1, true), single);
    tracing(new Shape(1, false), single);
    figures.add(
        PART,
        "1p/1t naive read-then-write (avoid)",
        "msg/s",
        Better.HIGHER,
        List.of(naive(single.name())),
        Optional.of(singleBaseline),
        Optional.empty());
  }

  void createTables() throws SQLException {
    execute(CREATE_EFFECTS, "CREATE TABLE IF NOT EXISTS naive_seen (key text PRIMARY KEY)");
  }

  Topic topic(int partitions) throws Exception {
    String topic = "bench-" + partitions + "p-" + UUID.randomUUID().toString().substring(0, 8);
    return produce(topic, partitions);
  }

  /**
   * Both arms of one shape: warm-up, the measured runs, the figures; returns the baseline. A run
   * that fails ends the shape: the runs completed by both arms before it still make the shape's
   * figures, a note says how many, and the failure is thrown on, named by shape, arm and run.
   */
  private Figure shape(Shape shape, Topic topic) throws Exception {
    out.printf(
        "%n%s: %d records (%d distinct keys, 10%% repeats) on %s, %d partition(s), %d thread(s),"
            + " %s%n",
        shape.name(),
        messages,
        topic.distinct(),
        topic.name(),
        topic.partitions(),
        shape.partitions(),
        shape.batchedWrites() ? "one multi-row INSERT per batch" : "one INSERT per record");
    List<ConsumerStages.Run> withInbox = new ArrayList<>();
    List<ConsumerStages.Run> withoutInbox = new ArrayList<>();
    RunFailedException failure = null;
    try {
      measured(shape, "inbox", "warm-up", () -> inbox(shape, topic, "warm-up"));
      measured(shape, "no inbox", "warm-up", () -> plain(shape, topic, "warm-up"));
      for (int i = 0; i < repeat; i++) {
        String label = "run " + (i + 1);
        if (i % 2 == 0) {
          withInbox.add(measured(shape, "inbox", label, () -> inbox(shape, topic, label)));
          withoutInbox.add(measured(shape, "no inbox", label, () -> plain(shape, topic, label)));
        } else {
          withoutInbox.add(measured(shape, "no inbox", label, () -> plain(shape, topic, label)));
          withInbox.add(measured(shape, "inbox", label, () -> inbox(shape, topic, label)));
        }
      }
    } catch (RunFailedException e) {
      failure = e;
    }
    int complete = Math.min(withInbox.size(), withoutInbox.size());
    if (complete == 0) {
      throw failure;
    }
    Figure baseline =
        shapeFigures(shape, withInbox.subList(0, complete), withoutInbox.subList(0, complete));
    if (failure != null) {
      figures.note(
          shape.name()
              + ": the figures are of the "
              + complete
              + " of "
              + repeat
              + " runs both arms completed before the failure noted below");
      throw failure;
    }
    return baseline;
  }

  /**
   * The price of tracing: the inbox consumer with an application's tracer (every record a sampled
   * span around its claim and handler) against the same consumer without a registry, in alternating
   * runs after a warm-up of each.
   */
  private void tracing(Shape shape, Topic topic) throws Exception {
    out.printf(
        "%n%s, tracing: %d records on %s, the inbox consumer with and without an"
            + " ObservationRegistry (OpenTelemetry, every span sampled)%n",
        shape.name(), messages, topic.name());
    List<ConsumerStages.Run> traced = new ArrayList<>();
    List<ConsumerStages.Run> untraced = new ArrayList<>();
    try (BenchTracer tracer = new BenchTracer()) {
      measured(
          shape,
          "inbox traced",
          "warm-up",
          () -> inbox(shape, topic, "traced, warm-up", Disturbance.NONE, tracer));
      measured(shape, "inbox", "warm-up", () -> inbox(shape, topic, "untraced, warm-up"));
      for (int i = 0; i < repeat; i++) {
        String label = "run " + (i + 1);
        Measurement tracedRun =
            () -> inbox(shape, topic, "traced, " + label, Disturbance.NONE, tracer);
        Measurement untracedRun = () -> inbox(shape, topic, "untraced, " + label);
        if (i % 2 == 0) {
          traced.add(measured(shape, "inbox traced", label, tracedRun));
          untraced.add(measured(shape, "inbox", label, untracedRun));
        } else {
          untraced.add(measured(shape, "inbox", label, untracedRun));
          traced.add(measured(shape, "inbox traced", label, tracedRun));
        }
      }
    }
    Figure baseline =
        figures.add(
            PART,
            shape.name() + " inbox, tracing off",
            "msg/s",
            Better.HIGHER,
            rates(untraced),
            Optional.empty(),
            Optional.empty());
    figures.add(
        PART,
        shape.name() + " inbox, tracing on",
        "msg/s",
        Better.HIGHER,
        rates(traced),
        Optional.of(baseline),
        Optional.empty());
  }

  private Figure shapeFigures(
      Shape shape, List<ConsumerStages.Run> withInbox, List<ConsumerStages.Run> withoutInbox) {
    ConsumerStages.print(out, shape.name(), withInbox, withoutInbox);
    Figure baseline =
        figures.add(
            PART,
            shape.name() + " no inbox, same handler",
            "msg/s",
            Better.HIGHER,
            rates(withoutInbox),
            Optional.empty(),
            Optional.empty());
    figures.add(
        PART,
        shape.name() + " inbox",
        "msg/s",
        Better.HIGHER,
        rates(withInbox),
        Optional.of(baseline),
        Optional.of(Target.ratioAtLeast(TARGET_RATIO)));
    ConsumerStages.addFigures(
        figures, PART, shape.name(), "inbox", ConsumerStages.INBOX, withInbox);
    ConsumerStages.addFigures(
        figures, PART, shape.name(), "no inbox", ConsumerStages.PLAIN, withoutInbox);
    return baseline;
  }

  /** One run of one arm. */
  private interface Measurement {
    ConsumerStages.Run run() throws Exception;
  }

  private static ConsumerStages.Run measured(
      Shape shape, String arm, String label, Measurement measurement) throws InterruptedException {
    try {
      return measurement.run();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw new RunFailedException(
          shape.name() + " " + arm + ", " + label + ", failed: " + e.getMessage(), e);
    }
  }

  /** A measured run that could not complete, named by shape, arm and run. */
  static final class RunFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunFailedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static List<Double> rates(List<ConsumerStages.Run> runs) {
    return runs.stream().map(ConsumerStages.Run::rate).toList();
  }

  private Topic produce(String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
    Random random = new Random(1);
    List<String> keys = new ArrayList<>();
    Set<String> distinct = new HashSet<>();
    List<Future<RecordMetadata>> sent = new ArrayList<>(messages);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "linger.ms", "20"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < messages; i++) {
        String key =
            !keys.isEmpty() && random.nextInt(10) == 0
                ? keys.get(random.nextInt(keys.size()))
                : UUID.randomUUID().toString();
        if (distinct.add(key)) {
          keys.add(key);
        }
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, key, "{\"amount\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
        sent.add(producer.send(record));
      }
      producer.flush();
    }
    // A record lost here would stall every run at the same count: fail now, with the reason.
    Map<TopicPartition, Long> endOffsets = new HashMap<>();
    for (Future<RecordMetadata> send : sent) {
      RecordMetadata written = send.get();
      endOffsets.merge(
          new TopicPartition(topic, written.partition()), written.offset() + 1, Math::max);
    }
    return new Topic(topic, partitions, distinct.size(), Map.copyOf(endOffsets));
  }

  /**
   * One run of one inbox consumer per partition, in one group: its rate and the consumers' stage
   * times.
   */
  private ConsumerStages.Run inbox(Shape shape, Topic topic, String label) throws Exception {
    return inbox(shape, topic, label, Disturbance.NONE);
  }

  ConsumerStages.Run inbox(Shape shape, Topic topic, String label, Disturbance disturbance)
      throws Exception {
    return inbox(shape, topic, label, disturbance, null);
  }

  /** One run of the inbox consumer; observed by {@code tracer} unless it is null. */
  private ConsumerStages.Run inbox(
      Shape shape, Topic topic, String label, Disturbance disturbance, BenchTracer tracer)
      throws Exception {
    String run = "inbox-" + UUID.randomUUID();
    MessageHandler handler = shape.batchedWrites() ? batchedHandler(run) : perRecordHandler(run);
    int threads = shape.partitions();
    Clock clock = FirstRecordClock.start(threads, topic.endOffsets());
    List<IdempotentConsumer> consumers = new ArrayList<>();
    List<ConsumerStages.Span> spans = new ArrayList<>();
    try (HikariDataSource pool = pool(threads)) {
      try {
        for (int i = 0; i < threads; i++) {
          ConsumerStages.Span span = new ConsumerStages.Span();
          AtomicReference<IdempotentConsumer> self = new AtomicReference<>();
          BatchProcessor.Hooks hooks =
              new BatchProcessor.Hooks() {
                @Override
                public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
                  clock.done(nextOffsets(records));
                  span.batchDone(records.size(), self.get().stats().stageNanos());
                  disturbance.batchCommitted(self.get(), records);
                }
              };
          BatchProcessor.Builder processor =
              BatchProcessor.builder(run).dataSource(pool).handler(handler).hooks(hooks);
          if (tracer != null) {
            processor.observationRegistry(tracer.registry());
          }
          IdempotentConsumer consumer =
              IdempotentConsumer.builder(processor)
                  .kafka(
                      Map.of(
                          "bootstrap.servers",
                          bootstrap,
                          "group.id",
                          run,
                          "interceptor.classes",
                          FirstRecordClock.class.getName()))
                  .topics(topic.name())
                  .build();
          self.set(consumer);
          consumers.add(consumer);
          spans.add(span);
          consumer.start();
        }
        clock.awaitDone();
      } finally {
        for (IdempotentConsumer consumer : consumers) {
          consumer.close();
        }
      }
    }
    double rate = clock.rate();
    long effects = count("SELECT count(*) FROM effects WHERE run = '" + run + "'");
    long keys = count("SELECT count(DISTINCT key) FROM effects WHERE run = '" + run + "'");
    long batches = consumers.stream().mapToLong(c -> c.stats().snapshot().batches()).sum();
    long fallbacks = consumers.stream().mapToLong(c -> c.stats().snapshot().batchFallbacks()).sum();
    // Records in committed batches beyond the topic's: batches read again after a rebalance.
    long readAgain =
        consumers.stream().mapToLong(c -> c.stats().snapshot().records()).sum() - messages;
    out.printf(
        "inbox, %s: %.0f msg/s, %d effects for %d distinct keys, %d batches (%d fell back to one"
            + " record per transaction), %d records read again%n",
        label, rate, effects, topic.distinct(), batches, fallbacks, readAgain);
    if (effects != topic.distinct() || keys != topic.distinct()) {
      // Every record of the topic was in a committed batch: a key without its effect was lost.
      throw new IllegalStateException(
          "the inbox consumer applied "
              + effects
              + " effects to "
              + keys
              + " keys for "
              + topic.distinct()
              + " distinct keys, after every record of the topic was done");
    }
    return ConsumerStages.Run.of(rate, spans);
  }

  /** One statement per record, in {@code handle}. */
  private static MessageHandler perRecordHandler(String run) {
    return (message, context) -> {
      try (PreparedStatement insert = context.connection().prepareStatement(INSERT_EFFECT)) {
        insert.setString(1, run);
        insert.setString(2, message.idempotencyKey().value());
        insert.executeUpdate();
      }
      return Outcome.success();
    };
  }

  /**
   * One statement per batch, in {@code beforeBatch}, for the keys the batch has just claimed;
   * {@code handle} only returns the outcome.
   */
  private static MessageHandler batchedHandler(String run) {
    return new MessageHandler() {
      @Override
      public void beforeBatch(List<IncomingMessage> messages, Connection connection)
          throws SQLException {
        String[] keys = new String[messages.size()];
        for (int i = 0; i < keys.length; i++) {
          keys[i] = messages.get(i).idempotencyKey().value();
        }
        insertEffects(connection, run, keys);
      }

      @Override
      public Outcome handle(IncomingMessage message, HandlerContext context) {
        return Outcome.success();
      }
    };
  }

  private static void insertEffects(Connection connection, String run, String[] keys)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(INSERT_EFFECTS)) {
      insert.setString(1, run);
      insert.setArray(2, connection.createArrayOf("text", keys));
      insert.executeUpdate();
    }
  }

  /**
   * The baseline: the same handler statements and the same shape (one transaction per poll, offsets
   * committed after it), without an inbox, so every repeat applies again; its stages timed by the
   * bench the way the inbox consumer times its own.
   */
  private ConsumerStages.Run plain(Shape shape, Topic topic, String label) throws Exception {
    String run = "plain-" + UUID.randomUUID();
    int threads = shape.partitions();
    Clock clock = FirstRecordClock.start(threads, topic.endOffsets());
    List<ConsumerStages.Span> spans = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Void>> loops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        ConsumerStages.Span span = new ConsumerStages.Span();
        spans.add(span);
        loops.add(
            pool.submit(
                () -> {
                  plainLoop(topic.name(), run, shape.batchedWrites(), clock, span);
                  return null;
                }));
      }
      clock.awaitDone();
      clock.stop();
      for (Future<Void> loop : loops) {
        loop.get(1, TimeUnit.MINUTES);
      }
    } finally {
      clock.stop();
      pool.shutdownNow();
    }
    double rate = clock.rate();
    long effects = count("SELECT count(*) FROM effects WHERE run = '" + run + "'");
    // Without an inbox a record read again after a rebalance applies again.
    out.printf(
        "no inbox, %s: %.0f msg/s, %d effects, %d records read again%n",
        label, rate, effects, effects - messages);
    if (effects < messages) {
      // Without an inbox every record applies (a batch read again applies again): fewer effects
      // than records means the loop stopped before the topic was done.
      throw new IllegalStateException(
          "the loop without an inbox applied "
              + effects
              + " effects for "
              + messages
              + " records, after every record of the topic was done");
    }
    return ConsumerStages.Run.of(rate, spans);
  }

  private void plainLoop(
      String topic, String run, boolean batchedWrites, Clock clock, ConsumerStages.Span span)
      throws SQLException {
    ConsumerStages.Timer stages = new ConsumerStages.Timer();
    try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    run,
                    "auto.offset.reset",
                    "earliest",
                    "enable.auto.commit",
                    "false",
                    "interceptor.classes",
                    FirstRecordClock.class.getName()),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        Connection connection = db.connect()) {
      connection.setAutoCommit(false);
      consumer.subscribe(List.of(topic));
      while (!clock.stopped()) {
        long polling = System.nanoTime();
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
        if (records.isEmpty()) {
          continue;
        }
        long handling = stages.since(Stage.POLL, polling);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        String[] keys = new String[records.count()];
        int i = 0;
        for (ConsumerRecord<String, byte[]> record : records) {
          Header key = record.headers().lastHeader("Idempotency-Key");
          keys[i++] = new String(key.value(), StandardCharsets.UTF_8);
          if (!batchedWrites) {
            // As the handler does: one statement per record.
            try (PreparedStatement effect = connection.prepareStatement(INSERT_EFFECT)) {
              effect.setString(1, run);
              effect.setString(2, keys[i - 1]);
              effect.executeUpdate();
            }
          }
          offsets.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
        }
        if (batchedWrites) {
          // As the batched handler does: one statement for the whole poll.
          insertEffects(connection, run, keys);
        }
        long committing = stages.since(Stage.HANDLER, handling);
        connection.commit();
        stages.since(Stage.COMMIT, committing);
        clock.done(offsets);
        span.batchDone(records.count(), stages.nanos());
        long committingOffsets = System.nanoTime();
        try {
          consumer.commitSync(toCommit(offsets));
        } catch (CommitFailedException | RebalanceInProgressException e) {
          // As the inbox consumer does: a later commit, or the partition's next owner, covers it.
        }
        stages.since(Stage.OFFSET_COMMIT, committingOffsets);
      }
    }
  }

  /** The pattern to avoid, on the first {@value #NAIVE_RECORDS} records of the topic. */
  private double naive(String topic) throws Exception {
    int records = Math.min(messages, NAIVE_RECORDS);
    long started = 0;
    int done = 0;
    try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    "bench-naive-" + UUID.randomUUID(),
                    "auto.offset.reset",
                    "earliest",
                    "enable.auto.commit",
                    "false"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        Connection connection = db.connect()) {
      consumer.subscribe(List.of(topic));
      connection.setAutoCommit(false);
      while (done < records) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (started == 0) {
            started = System.nanoTime();
          }
          if (done == records) {
            break;
          }
          boolean seen;
          // The pattern to avoid: check, then write. Correct only with the primary key
          // behind it.
          try (PreparedStatement check =
              connection.prepareStatement("SELECT 1 FROM naive_seen WHERE key = ?")) {
            check.setString(1, record.key());
            try (ResultSet row = check.executeQuery()) {
              seen = row.next();
            }
          }
          if (!seen) {
            try (PreparedStatement mark =
                    connection.prepareStatement("INSERT INTO naive_seen (key) VALUES (?)");
                PreparedStatement effect = connection.prepareStatement(INSERT_EFFECT)) {
              mark.setString(1, record.key());
              mark.executeUpdate();
              effect.setString(1, "naive");
              effect.setString(2, record.key());
              effect.executeUpdate();
            }
          }
          connection.commit();
          consumer.commitSync(
              Map.of(
                  new TopicPartition(record.topic(), record.partition()),
                  new OffsetAndMetadata(record.offset() + 1)));
          done++;
        }
      }
    }
    double rate = records / ((System.nanoTime() - started) / 1e9);
    out.printf("naive: %d records, %.0f msg/s%n", records, rate);
    return rate;
  }

  /** A pool as an application would have: one connection per consumer thread, kept open. */
  private HikariDataSource pool(int threads) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(db.dataSource());
    config.setMaximumPoolSize(threads);
    config.setMinimumIdle(threads);
    config.setAutoCommit(false);
    config.setPoolName("bench-inbox");
    return new HikariDataSource(config);
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }

  /** Per partition of {@code records}: the offset after the last record of it. */
  static Map<TopicPartition, Long> nextOffsets(List<? extends ConsumerRecord<?, ?>> records) {
    Map<TopicPartition, Long> next = new HashMap<>();
    for (ConsumerRecord<?, ?> record : records) {
      next.merge(
          new TopicPartition(record.topic(), record.partition()), record.offset() + 1, Math::max);
    }
    return next;
  }

  private static Map<TopicPartition, OffsetAndMetadata> toCommit(Map<TopicPartition, Long> next) {
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    next.forEach((partition, offset) -> commit.put(partition, new OffsetAndMetadata(offset)));
    return commit;
  }

  /**
   * One run's clock and its end: the run is done once every record of the topic has been in a
   * committed batch, each partition up to its end offset. It counts records by how far each
   * partition has got, not by how many records batches held: after a rebalance the partition's new
   * owner reads again the batches whose offsets the old one had not committed, and counting those
   * twice would end the run with records still unread.
   *
   * <p>It is timed from the moment every consumer of the run has received records to the last
   * commit. Until then the group is still forming: the first member to join takes every partition
   * and gives them up as the others join (a cooperative rebalance moves them in two rounds, an
   * eager one stops everyone), and how long that takes depends on start-up order, not on the loop
   * being measured. Records done before that moment are not counted. A run in which some consumer
   * never received records is timed from the first record any of them received.
   */
  static final class Clock {
    private final int consumers;
    private final LongSupplier nanoTime;
    private final Map<TopicPartition, Long> endOffsets;
    private final long records;
    private final Set<Object> consuming = ConcurrentHashMap.newKeySet();
    private final AtomicLong first = new AtomicLong();
    private final Map<TopicPartition, Long> reached = new HashMap<>();
    private long recordsDone;
    private long last;
    private long allConsuming;
    private long recordsBefore;
    private volatile boolean stopped;

    /**
     * {@code endOffsets}: every partition of the run's topic and the offset after its last record.
     */
    Clock(int consumers, Map<TopicPartition, Long> endOffsets, LongSupplier nanoTime) {
      this.consumers = consumers;
      this.endOffsets = Map.copyOf(endOffsets);
      this.records = endOffsets.values().stream().mapToLong(Long::longValue).sum();
      this.nanoTime = nanoTime;
    }

    /** {@code consumer} (one object per Kafka consumer) received records from a poll. */
    void firstRecord(Object consumer) {
      first.compareAndSet(0, nanoTime.getAsLong());
      if (consuming.add(consumer) && consuming.size() == consumers) {
        synchronized (this) {
          recordsBefore = recordsDone;
          allConsuming = nanoTime.getAsLong();
        }
      }
    }

    /**
     * A batch committed; {@code nextOffsets}: per partition, the offset after its last record. A
     * batch read again moves no partition further.
     */
    synchronized void done(Map<TopicPartition, Long> nextOffsets) {
      nextOffsets.forEach(
          (partition, next) -> {
            if (!endOffsets.containsKey(partition)) {
              throw new IllegalArgumentException(partition + " is not a partition of the run");
            }
            long before = reached.getOrDefault(partition, 0L);
            if (next > before) {
              reached.put(partition, next);
              recordsDone += next - before;
            }
          });
      last = nanoTime.getAsLong();
    }

    /** Records done, each counted once however often it was read. */
    synchronized long recordsDone() {
      return recordsDone;
    }

    boolean stopped() {
      return stopped;
    }

    void stop() {
      stopped = true;
    }

    /** Waits until every record of the topic is done; five minutes without that is a stall. */
    void awaitDone() throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (recordsDone() < records) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the run stalled: " + progress());
        }
        Thread.sleep(5);
      }
    }

    /** How far each partition has got, e.g. for a stalled run. */
    synchronized String progress() {
      String partitions =
          endOffsets.entrySet().stream()
              .sorted(Map.Entry.comparingByKey(Comparator.comparingInt(TopicPartition::partition)))
              .map(
                  end ->
                      end.getKey()
                          + " done up to offset "
                          + reached.getOrDefault(end.getKey(), 0L)
                          + " of "
                          + end.getValue())
              .collect(Collectors.joining(", "));
      return partitions + " (" + recordsDone + " of " + records + " records)";
    }

    synchronized double rate() {
      boolean timedFromAll = allConsuming != 0 && last > allConsuming;
      long start = timedFromAll ? allConsuming : first.get();
      long counted = recordsDone - (timedFromAll ? recordsBefore : 0);
      return counted / ((last - start) / 1e9);
    }
  }

  /**
   * Tells the run's clock when a consumer's poll returns records, for the inbox and the plain
   * consumer alike; each Kafka consumer has an instance of its own. Kafka instantiates it by class
   * name, hence the static clock: runs never overlap.
   */
  public static final class FirstRecordClock implements ConsumerInterceptor<Object, Object> {
    private static volatile Clock current;

    static Clock start(int consumers, Map<TopicPartition, Long> endOffsets) {
      Clock clock = new Clock(consumers, endOffsets, System::nanoTime);
      current = clock;
      return clock;
    }

    public FirstRecordClock() {}

    @Override
    public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
      if (!records.isEmpty()) {
        current.firstRecord(this);
      }
      return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }

  /**
   * Waits until a retention run's consumer has done {@code target} records; five minutes is a
   * stall.
   */
  static void awaitProgress(LongSupplier progress, long target) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (progress.getAsLong() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "benchmark consumer stalled at " + progress.getAsLong() + " of " + target);
      }
      Thread.sleep(5);
    }
  }
}
