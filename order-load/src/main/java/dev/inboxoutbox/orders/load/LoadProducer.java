package dev.inboxoutbox.orders.load;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends PlaceOrder commands to {@code orders.commands}: each with a fresh idempotency key, plus a
 * share of client retries (same key, same order, re-serialised), conflicts (same key, another
 * order), malformed records and cancellations (a CancelOrder naming the order's key: half of them
 * right behind it, a quarter up to about a second later, while its payment is being charged, and a
 * quarter as soon as the provider has charged it, when {@link #cancelSomeOnceCharged told} how to
 * tell). Remembers what it sent so the verifier can hold the system to it.
 */
public final class LoadProducer implements AutoCloseable {

  public static final String TOPIC = "orders.commands";
  private static final int SKUS = 10;

  /**
   * What was sent, by key: read by the verifier while the load runs and after it, written by the
   * load alone.
   */
  public static final class Sent {
    private final Set<String> validKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> conflictKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> malformedKeys = ConcurrentHashMap.newKeySet();
    private final Map<String, String> cancelledOrderKeys = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final Map<String, Long> firstSentAtEpochMillis = new ConcurrentHashMap<>();
    private final AtomicLong failedSends = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();

    /** The keys of the distinct orders sent. */
    public Set<String> validKeys() {
      return Collections.unmodifiableSet(validKeys);
    }

    /** Keys sent again with another order. */
    public Set<String> conflictKeys() {
      return Collections.unmodifiableSet(conflictKeys);
    }

    /** Keys of records that were not valid JSON. */
    public Set<String> malformedKeys() {
      return Collections.unmodifiableSet(malformedKeys);
    }

    /** CancelOrder keys, each with the key of the PlaceOrder it names and follows. */
    public Map<String, String> cancelledOrderKeys() {
      return Collections.unmodifiableMap(cancelledOrderKeys);
    }

    /** Records handed to the producer. */
    public long records() {
      return records.get();
    }

    /** Client retries: orders sent again with their key, re-serialised. */
    public long retries() {
      return retries.get();
    }

    /** When each distinct order was first sent (epoch ms): where its end-to-end latency starts. */
    public Map<String, Long> firstSentAtEpochMillis() {
      return Collections.unmodifiableMap(firstSentAtEpochMillis);
    }

    /** Sends Kafka did not acknowledge: a broken run, not a broken consumer. */
    public long failedSends() {
      return failedSends.get();
    }

    /** The first send Kafka did not acknowledge, with its error. */
    public Optional<String> firstFailure() {
      return Optional.ofNullable(firstFailure.get());
    }

    public Map<String, Object> summary() {
      return Map.of(
          "records", records.get(),
          "distinctOrders", validKeys.size(),
          "clientRetries", retries.get(),
          "conflicts", conflictKeys.size(),
          "malformed", malformedKeys.size(),
          "cancels", cancelledOrderKeys.size(),
          "failedSends", failedSends.get());
    }

    /** The summary for a person: what went out, and what Kafka did not take. */
    String describe() {
      String line =
          records.get()
              + " records: "
              + validKeys.size()
              + " orders, "
              + retries.get()
              + " client retries, "
              + conflictKeys.size()
              + " conflicts, "
              + malformedKeys.size()
              + " malformed, "
              + cancelledOrderKeys.size()
              + " cancels";
      long failed = failedSends.get();
      return failed == 0
          ? line + "; all acknowledged"
          : line + "; " + failed + " not acknowledged, the first: " + firstFailure.get();
    }
  }

  /** What each sent record was, in send order: for tracing keys later. */
  enum SentKind {
    ORDER,
    CLIENT_RETRY,
    CONFLICT,
    MALFORMED,
    CANCEL
  }

  /** A CancelOrder held back until {@code dueAfterOrder} orders have been sent. */
  private record LateCancel(int dueAfterOrder, String customer, String placeKey) {}

  /** A CancelOrder held back until its order's payment is charged, or until {@code dueAtNanos}. */
  private record CancelOnceCharged(long dueAtNanos, String customer, String placeKey) {}

  /** Which orders the payment provider has charged, by the keys that placed them. */
  @FunctionalInterface
  public interface Charges {
    /**
     * Answers the keys among {@code placeKeys} whose order's payment is charged, or can no longer
     * be; an exception counts as none yet (the database may be down in a chaos run).
     */
    Set<String> chargedAmong(Collection<String> placeKeys) throws Exception;
  }

  /** Told of each record as it is handed to the producer. */
  @FunctionalInterface
  interface SendListener {
    public void sent(SentKind kind, String idempotencyKey);
  }

  private final KafkaProducer<String, byte[]> producer;
  private final Random random;
  private final double retryShare;
  private final double conflictShare;
  private final double malformedShare;
  private final double cancelShare;
  private final Sent sent = new Sent();
  private final List<String[]> recent = new ArrayList<>();
  private final List<LateCancel> lateCancels = new ArrayList<>();
  private final List<CancelOnceCharged> cancelsOnceCharged = new ArrayList<>();
  private Charges charges;
  private long patienceNanos;
  private long chargesAskedAtNanos;
  private SendListener listener = (kind, key) -> {};

  public LoadProducer(
      String bootstrap,
      long seed,
      double retryShare,
      double conflictShare,
      double malformedShare,
      double cancelShare) {
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                // Orders go out at a paced rate (150 a second in a chaos run): waiting 50 ms
                // lets each produce request carry several, and a broker's CPU goes per request
                // (the follower fetches that replicate it included).
                ProducerConfig.LINGER_MS_CONFIG, "50"),
            new StringSerializer(),
            new ByteArraySerializer());
    this.random = new Random(seed);
    this.retryShare = retryShare;
    this.conflictShare = conflictShare;
    this.malformedShare = malformedShare;
    this.cancelShare = cancelShare;
  }

  /** Replaces the listener told of each send; call before {@link #send(int, int, Gate)}. */
  void onEachSend(SendListener listener) {
    this.listener = listener;
  }

  /**
   * Holds a quarter of the cancels back until the provider has charged their order, asking {@code
   * charges} at most twice a second, and sends each at the latest {@code patience} after its order.
   * The cancel then races the charge's webhook to the order, and a run always has cancelled orders
   * whose captured money must go back, however slow its pipeline. Without it those cancels go about
   * a second later, like the ones racing the payment. Call before {@link #send(int, int, Gate)},
   * and {@link #sendHeldCancels()} after it.
   */
  public void cancelSomeOnceCharged(Charges charges, Duration patience) {
    this.charges = charges;
    this.patienceNanos = patience.toNanos();
  }

  public Sent sent() {
    return sent;
  }

  /**
   * Decides when the next order may go: a closed loop holds the load back while the system has too
   * much unfinished work, and ends it.
   */
  @FunctionalInterface
  public interface Gate {
    /**
     * Blocks until the next order may be sent; false ends the load.
     *
     * @param ordersSent distinct orders sent so far
     */
    boolean admit(int ordersSent) throws InterruptedException;
  }

  /** Sends {@code orders} distinct orders (plus the extra shares) at about {@code perSecond}. */
  public void send(int orders, int perSecond) throws InterruptedException {
    send(orders, perSecond, ordersSent -> true);
  }

  /**
   * Sends up to {@code orders} distinct orders (plus the extra shares) at about {@code perSecond}
   * at most, each once {@code gate} admits it, until the gate ends the load.
   */
  public void send(int orders, int perSecond, Gate gate) throws InterruptedException {
    long started = System.nanoTime();
    int pacedSinceStart = 0;
    long interval = perSecond > 0 ? Duration.ofSeconds(1).toNanos() / perSecond : 0;
    for (int i = 0; i < orders; i++) {
      long asked = System.nanoTime();
      if (!gate.admit(i)) {
        break;
      }
      if (System.nanoTime() - asked > interval) {
        // The gate held the load back: the rate counts from here, not with a burst to catch up.
        started = System.nanoTime();
        pacedSinceStart = 0;
      }
      String customer = "c-" + random.nextInt(500);
      String key = UUID.randomUUID().toString();
      String order = order(customer);
      sent.firstSentAtEpochMillis.put(key, System.currentTimeMillis());
      send(key, customer, order);
      listener.sent(SentKind.ORDER, key);
      sent.validKeys.add(key);
      remember(key, customer, order);
      if (random.nextDouble() < cancelShare) {
        int when = random.nextInt(4);
        if (when < 2) {
          // Right behind its order in the same partition: only a consumer that applies a partition
          // out of order cancels before the order exists.
          cancel(customer, key);
        } else if (when == 3 && charges != null) {
          // As soon as the provider has charged: the cancel races the charge's webhook to the
          // order, and what the provider captured has to go back.
          cancelsOnceCharged.add(
              new CancelOnceCharged(System.nanoTime() + patienceNanos, customer, key));
        } else {
          // Later, while the order's payment is requested, charged or captured: the cancel races
          // with the payment, and whatever the provider took has to go back.
          int later = 1 + random.nextInt(perSecond > 0 ? perSecond : 100);
          lateCancels.add(new LateCancel(i + 1 + later, customer, key));
        }
      }
      if (random.nextDouble() < retryShare) {
        String[] earlier = recent.get(random.nextInt(recent.size()));
        // A client retry: same key, same order, serialised differently.
        send(earlier[0], earlier[1], earlier[2].replace(",", ", "));
        listener.sent(SentKind.CLIENT_RETRY, earlier[0]);
        sent.retries.incrementAndGet();
      }
      if (random.nextDouble() < conflictShare) {
        String[] earlier = recent.get(random.nextInt(recent.size()));
        send(earlier[0], earlier[1], order(earlier[1] + "-changed"));
        listener.sent(SentKind.CONFLICT, earlier[0]);
        sent.conflictKeys.add(earlier[0]);
      }
      if (random.nextDouble() < malformedShare) {
        String malformedKey = "malformed-" + UUID.randomUUID();
        send(malformedKey, customer, "{\"customerId\":\"" + customer + "\",\"items\":[");
        listener.sent(SentKind.MALFORMED, malformedKey);
        sent.malformedKeys.add(malformedKey);
      }
      sendLateCancels(i + 1);
      sendCancelsOnceCharged();
      pace(started, ++pacedSinceStart, perSecond);
    }
    sendLateCancels(Integer.MAX_VALUE);
    producer.flush();
  }

  /**
   * Sends the cancels still waiting for their order's charge, each as soon as it is due, and
   * returns when none is left: at the latest the patience after the last order. The load itself
   * ends with {@link #send(int, int, Gate)}; a run settles after this.
   */
  public void sendHeldCancels() throws InterruptedException {
    while (!cancelsOnceCharged.isEmpty()) {
      sendCancelsOnceCharged();
      Thread.sleep(100);
    }
    producer.flush();
  }

  /** Sends the held-back cancels whose order is charged, or whose patience has run out. */
  private void sendCancelsOnceCharged() {
    long now = System.nanoTime();
    if (cancelsOnceCharged.isEmpty() || now - chargesAskedAtNanos < 500_000_000L) {
      return;
    }
    chargesAskedAtNanos = now;
    Set<String> charged;
    try {
      charged =
          charges.chargedAmong(
              cancelsOnceCharged.stream().map(CancelOnceCharged::placeKey).toList());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      charged = Set.of();
    } catch (Exception notKnownYet) {
      charged = Set.of();
    }
    for (var held = cancelsOnceCharged.iterator(); held.hasNext(); ) {
      CancelOnceCharged cancel = held.next();
      if (charged.contains(cancel.placeKey()) || now - cancel.dueAtNanos() >= 0) {
        cancel(cancel.customer(), cancel.placeKey());
        held.remove();
      }
    }
  }

  /** Sends the held-back cancels due once {@code ordersSent} orders are out. */
  private void sendLateCancels(int ordersSent) {
    for (var due = lateCancels.iterator(); due.hasNext(); ) {
      LateCancel late = due.next();
      if (late.dueAfterOrder() <= ordersSent) {
        cancel(late.customer(), late.placeKey());
        due.remove();
      }
    }
  }

  /** A CancelOrder naming the order by the key that placed it, in its customer's partition. */
  private void cancel(String customer, String placeKey) {
    String cancelKey = UUID.randomUUID().toString();
    send(cancelKey, customer, "CancelOrder", "{\"placedBy\":\"" + placeKey + "\"}");
    listener.sent(SentKind.CANCEL, cancelKey);
    sent.cancelledOrderKeys.put(cancelKey, placeKey);
  }

  private void remember(String key, String customer, String order) {
    // Retries and conflicts reach back to recent orders, as real clients would.
    if (recent.size() < 200) {
      recent.add(new String[] {key, customer, order});
    } else {
      recent.set(random.nextInt(recent.size()), new String[] {key, customer, order});
    }
  }

  private String order(String customer) {
    StringBuilder items = new StringBuilder();
    int lines = 1 + random.nextInt(3);
    for (int line = 0; line < lines; line++) {
      String sku =
          random.nextInt(50) == 0
              ? "SKU-RARE"
              : String.format("SKU-%02d", 1 + random.nextInt(SKUS));
      if (line > 0) {
        items.append(',');
      }
      items
          .append("{\"sku\":\"")
          .append(sku)
          .append("\",\"qty\":")
          .append(1 + random.nextInt(3))
          .append(",\"unitPriceCents\":")
          .append(100 * (1 + random.nextInt(50)))
          .append('}');
    }
    return "{\"customerId\":\"" + customer + "\",\"items\":[" + items + "]}";
  }

  private void send(String key, String customer, String json) {
    send(key, customer, "PlaceOrder", json);
  }

  private void send(String key, String customer, String type, String json) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(TOPIC, customer, json.getBytes(StandardCharsets.UTF_8));
    record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
    record.headers().add("type", type.getBytes(StandardCharsets.UTF_8));
    producer.send(
        record,
        (metadata, error) -> {
          if (error != null) {
            sent.failedSends.incrementAndGet();
            sent.firstFailure.compareAndSet(null, key + ": " + error);
          }
        });
    sent.records.incrementAndGet();
  }

  private static void pace(long startedNanos, int done, int perSecond) throws InterruptedException {
    if (perSecond <= 0) {
      return;
    }
    long due = startedNanos + Duration.ofSeconds(1).toNanos() * done / perSecond;
    long wait = due - System.nanoTime();
    if (wait > 1_000_000) {
      Thread.sleep(wait / 1_000_000);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
