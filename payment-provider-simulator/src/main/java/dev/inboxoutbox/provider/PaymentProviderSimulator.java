package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.inboxoutbox.provider.ChargeRequest.InvalidChargeRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A payment provider on the JDK's HTTP server, for tests, local runs and the chaos run.
 *
 * <ul>
 *   <li>{@code POST /v1/charges} with {@code Idempotency-Key}: the first request makes a charge
 *       ({@code 201}), writes the ledger and schedules a webhook; the same key with the same
 *       parameters gets the stored response again ({@code 200}, {@code Idempotent-Replayed: true});
 *       the same key with other parameters gets {@code 422}; a missing or too long key {@code 400}.
 *       The key is claimed atomically, so concurrent requests with one key make one charge.
 *   <li>{@code GET /v1/ledger}: every charge made, in order.
 *   <li>Webhooks {@code charge.succeeded} / {@code charge.failed}, signed with {@link
 *       WebhookSignature}, delivered at-least-once by a {@link WebhookDispatcher}.
 * </ul>
 *
 * <p>Whether a charge fails is decided from the seed and the idempotency key, never from a shared
 * random sequence: the same key fails or succeeds on every run, whatever the request order.
 */
public final class PaymentProviderSimulator implements AutoCloseable {

  public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

  private static final Logger log = LoggerFactory.getLogger(PaymentProviderSimulator.class);
  private static final int MAX_BODY_BYTES = 64 * 1024;
  private static final HexFormat HEX = HexFormat.of();

  static {
    useNoDelayForJdkHttpServers();
  }

  /**
   * Turns on TCP_NODELAY for the JDK HTTP servers of this JVM, unless the user chose otherwise. The
   * JDK server writes headers and body in separate segments; with Nagle's algorithm on, each
   * response then waits ~40 ms for the client's delayed ACK. The JDK reads the setting once, when
   * the JVM's first server starts: code that starts a JDK server before this class is loaded calls
   * this first.
   */
  public static void useNoDelayForJdkHttpServers() {
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final ObjectMapper json = new ObjectMapper();
  private final Builder settings;
  private final ConcurrentHashMap<String, StoredCharge> chargesByKey = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<LedgerEntry> ledger = new ConcurrentLinkedQueue<>();
  private final WebhookDispatcher webhooks;
  private volatile boolean outage;
  private HttpServer server;
  private ExecutorService requestThreads;

  /** What a key was first used for, and the response it got. */
  private record StoredCharge(ChargeRequest request, LedgerEntry entry, byte[] response) {}

  private PaymentProviderSimulator(Builder builder) {
    this.settings = builder;
    this.webhooks =
        new WebhookDispatcher(
            new WebhookSignature(builder.webhookSecret),
            builder.webhookUrl,
            builder.duplicateShare,
            builder.delayMin,
            builder.delayMax,
            builder.retryMin,
            builder.retryMax,
            builder.webhookThreads,
            builder.seed);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Binds the port and starts serving; returns this for chaining. */
  public synchronized PaymentProviderSimulator start() {
    if (server != null) {
      throw new IllegalStateException("the simulator is already started");
    }
    try {
      server = HttpServer.create(new InetSocketAddress(settings.host, settings.port), 64);
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on " + settings.host + ":" + settings.port, e);
    }
    // Several request threads, so concurrent requests with one key really race for it.
    AtomicInteger counter = new AtomicInteger();
    requestThreads =
        Executors.newFixedThreadPool(
            settings.requestThreads,
            runnable -> {
              Thread thread = new Thread(runnable, "provider-http-" + counter.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(requestThreads);
    server.createContext("/v1/charges", exchange -> serve(exchange, this::charges));
    server.createContext("/v1/ledger", exchange -> serve(exchange, this::ledgerEndpoint));
    server.createContext(
        "/",
        exchange -> serve(exchange, e -> respond(e, 404, error("not_found", "no such endpoint"))));
    server.start();
    log.info(
        "payment provider simulator on port {}; webhooks to {} (duplicate share {}, delay {}-{} ms, failure share {}, seed {})",
        port(),
        webhooks.target(),
        settings.duplicateShare,
        settings.delayMin.toMillis(),
        settings.delayMax.toMillis(),
        settings.failureShare,
        settings.seed);
    return this;
  }

  /** The bound port (useful after {@code port(0)}). */
  public int port() {
    if (server == null) {
      throw new IllegalStateException("the simulator is not started");
    }
    return server.getAddress().getPort();
  }

  /** {@code http://localhost:<port>}, the base URL clients call. */
  public URI baseUrl() {
    return URI.create("http://localhost:" + port());
  }

  /** Every charge made so far, in the order they were made. */
  public List<LedgerEntry> ledger() {
    return List.copyOf(ledger);
  }

  /** The ledger entries of one payment; a correct client leaves at most one. */
  public List<LedgerEntry> ledgerFor(String paymentId) {
    return ledger.stream().filter(entry -> entry.paymentId().equals(paymentId)).toList();
  }

  /** Every webhook event published so far (each once, however often it is delivered). */
  public List<WebhookEvent> webhookEvents() {
    return webhooks.published();
  }

  public WebhookStats webhookStats() {
    return webhooks.stats();
  }

  /**
   * Points webhooks at another receiver from now on, including copies still waiting for their
   * delivery or retry; for receivers whose port is only known after they started.
   */
  public void webhookUrl(URI url) {
    webhooks.target(url);
  }

  /**
   * Simulates an outage: while on, {@code POST /v1/charges} answers {@code 503} without touching
   * the ledger or the idempotency keys, as a provider behind a failing load balancer would.
   */
  public void outage(boolean on) {
    this.outage = on;
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      requestThreads.shutdownNow();
      try {
        requestThreads.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    webhooks.close();
  }

  private void charges(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals("/v1/charges")) {
      respond(exchange, 404, error("not_found", "no such endpoint"));
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("Allow", "POST");
      respond(exchange, 405, error("method_not_allowed", "use POST"));
      return;
    }
    if (outage) {
      respond(
          exchange, 503, error("provider_unavailable", "the provider is unavailable; retry later"));
      return;
    }
    String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY_HEADER);
    if (key == null || key.isBlank()) {
      respond(
          exchange,
          400,
          error("idempotency_key_missing", "the Idempotency-Key header is required"));
      return;
    }
    if (key.length() > MAX_IDEMPOTENCY_KEY_LENGTH) {
      respond(
          exchange,
          400,
          error(
              "idempotency_key_too_long",
              "Idempotency-Key has "
                  + key.length()
                  + " characters; at most "
                  + MAX_IDEMPOTENCY_KEY_LENGTH));
      return;
    }
    byte[] body = readBody(exchange);
    if (body == null) {
      respond(exchange, 413, error("body_too_large", "at most " + MAX_BODY_BYTES + " bytes"));
      return;
    }
    ChargeRequest request;
    try {
      request = ChargeRequest.parse(json, body);
    } catch (InvalidChargeRequestException e) {
      // Like Stripe: a request refused by validation stores nothing, so the key stays usable.
      respond(exchange, 400, error("invalid_request", e.getMessage()));
      return;
    }
    StoredCharge candidate = newCharge(key, request);
    StoredCharge stored = chargesByKey.putIfAbsent(key, candidate);
    if (stored == null) {
      ledger.add(candidate.entry());
      webhooks.publish(webhookEvent(candidate.entry()));
      respond(exchange, 201, candidate.response());
    } else if (stored.request().equals(request)) {
      exchange.getResponseHeaders().set(REPLAYED_HEADER, "true");
      respond(exchange, 200, stored.response());
    } else {
      respond(
          exchange,
          422,
          error(
              "idempotency_key_reused",
              "Idempotency-Key "
                  + key
                  + " was used for other parameters (payment "
                  + stored.request().paymentId()
                  + ", "
                  + stored.request().amountCents()
                  + " "
                  + stored.request().currency()
                  + ")"));
    }
  }

  /**
   * How a charge under this idempotency key ends (or ended): decided by the seed, the key and the
   * failure share alone, so tests and verifiers can predict which payments must fail.
   */
  public ChargeStatus outcomeFor(String idempotencyKey) {
    return unitFraction("outcome", idempotencyKey) < settings.failureShare
        ? ChargeStatus.FAILED
        : ChargeStatus.SUCCEEDED;
  }

  private StoredCharge newCharge(String key, ChargeRequest request) throws JsonProcessingException {
    ChargeStatus status = outcomeFor(key);
    LedgerEntry entry =
        new LedgerEntry(
            "ch_" + digestHex("charge", key).substring(0, 24),
            request.paymentId(),
            request.amountCents(),
            request.currency(),
            status,
            key,
            Instant.now());
    ObjectNode response = json.createObjectNode();
    response.put("chargeId", entry.chargeId());
    response.put("paymentId", entry.paymentId());
    response.put("amountCents", entry.amountCents());
    response.put("currency", entry.currency());
    response.put("status", status.wireName());
    return new StoredCharge(request, entry, json.writeValueAsBytes(response));
  }

  private WebhookEvent webhookEvent(LedgerEntry charge) throws JsonProcessingException {
    String type = charge.status().eventType();
    String id = "evt_" + digestHex("event", charge.chargeId() + "/" + type).substring(0, 24);
    long created = charge.createdAt().getEpochSecond();
    ObjectNode event = json.createObjectNode();
    event.put("id", id);
    event.put("type", type);
    event.put("created", created);
    ObjectNode data = event.putObject("data");
    data.put("chargeId", charge.chargeId());
    data.put("paymentId", charge.paymentId());
    data.put("amountCents", charge.amountCents());
    data.put("currency", charge.currency());
    return new WebhookEvent(id, type, created, charge.paymentId(), json.writeValueAsString(event));
  }

  private void ledgerEndpoint(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals("/v1/ledger")) {
      respond(exchange, 404, error("not_found", "no such endpoint"));
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      exchange.getResponseHeaders().set("Allow", "GET");
      respond(exchange, 405, error("method_not_allowed", "use GET"));
      return;
    }
    ObjectNode root = json.createObjectNode();
    ArrayNode charges = root.putArray("charges");
    for (LedgerEntry entry : ledger) {
      ObjectNode charge = charges.addObject();
      charge.put("chargeId", entry.chargeId());
      charge.put("paymentId", entry.paymentId());
      charge.put("amountCents", entry.amountCents());
      charge.put("currency", entry.currency());
      charge.put("status", entry.status().wireName());
      charge.put("idempotencyKey", entry.idempotencyKey());
      charge.put("createdAt", entry.createdAt().toString());
    }
    respond(exchange, 200, json.writeValueAsBytes(root));
  }

  /**
   * A number in [0, 1) fixed by the seed and the key, so a key's fate does not depend on timing.
   */
  private double unitFraction(String purpose, String key) {
    byte[] digest = digest(purpose, key);
    long bits = ByteBuffer.wrap(digest).getLong() >>> 11;
    return bits / (double) (1L << 53);
  }

  private String digestHex(String purpose, String key) {
    return HEX.formatHex(digest(purpose, key));
  }

  private byte[] digest(String purpose, String key) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      return sha256.digest(
          (purpose + "\u0000" + settings.seed + "\u0000" + key).getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private byte[] error(String code, String message) throws JsonProcessingException {
    ObjectNode error = json.createObjectNode();
    error.put("error", code);
    error.put("message", message);
    return json.writeValueAsBytes(error);
  }

  /** Reads at most {@link #MAX_BODY_BYTES}; null when the body is larger. */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }

  private static void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @FunctionalInterface
  private interface Endpoint {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static void serve(HttpExchange exchange, Endpoint endpoint) {
    try {
      endpoint.handle(exchange);
    } catch (IOException | RuntimeException e) {
      // The JDK server would silently drop the connection; a 500 tells the client to retry.
      log.warn("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      try {
        exchange.sendResponseHeaders(500, -1);
      } catch (IOException | RuntimeException ignored) {
        // Headers were already sent; the client sees a cut response and retries.
      }
    } finally {
      exchange.close();
    }
  }

  /** Settings of a simulator; every one has a default except the webhook secret. */
  public static final class Builder {
    private String host = "0.0.0.0";
    private int port = 0;
    private String webhookSecret;
    private URI webhookUrl;
    private double duplicateShare = 0.0;
    private double failureShare = 0.0;
    private Duration delayMin = Duration.ZERO;
    private Duration delayMax = Duration.ZERO;
    private Duration retryMin = Duration.ofMillis(100);
    private Duration retryMax = Duration.ofSeconds(5);
    private int webhookThreads = 4;
    private int requestThreads = 16;
    private long seed = 42;

    private Builder() {}

    /** Interface to listen on; default all interfaces. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Port to listen on; 0 (the default) takes a free one, see {@link #port()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0..65535");
      }
      this.port = port;
      return this;
    }

    /** The secret webhooks are signed with; required. */
    public Builder webhookSecret(String webhookSecret) {
      this.webhookSecret = webhookSecret;
      return this;
    }

    /**
     * Where webhooks go; without one they wait (and retry) until {@code webhookUrl(URI)} is set.
     */
    public Builder webhookUrl(URI webhookUrl) {
      this.webhookUrl = webhookUrl;
      return this;
    }

    public Builder webhookUrl(String webhookUrl) {
      return webhookUrl(webhookUrl == null || webhookUrl.isBlank() ? null : URI.create(webhookUrl));
    }

    /** Share of events delivered twice, 0 to 1. */
    public Builder duplicateShare(double share) {
      this.duplicateShare = share(share, "duplicateShare");
      return this;
    }

    /**
     * Share of charges that fail (status {@code failed}, webhook {@code charge.failed}), 0 to 1.
     */
    public Builder failureShare(double share) {
      this.failureShare = share(share, "failureShare");
      return this;
    }

    /** Random delay of every webhook copy, uniformly between the two; reorders deliveries. */
    public Builder delay(Duration min, Duration max) {
      if (min.isNegative() || max.compareTo(min) < 0) {
        throw new IllegalArgumentException("delay needs 0 <= min <= max");
      }
      this.delayMin = min;
      this.delayMax = max;
      return this;
    }

    /** Backoff between failed webhook attempts, doubling from min to max. */
    public Builder retryBackoff(Duration min, Duration max) {
      if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
        throw new IllegalArgumentException("retry backoff needs 0 < min <= max");
      }
      this.retryMin = min;
      this.retryMax = max;
      return this;
    }

    public Builder webhookThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("at least one webhook thread");
      }
      this.webhookThreads = threads;
      return this;
    }

    public Builder requestThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("at least one request thread");
      }
      this.requestThreads = threads;
      return this;
    }

    /** Seeds charge ids, failures, duplicates and delays, so a run can be repeated. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public PaymentProviderSimulator build() {
      if (webhookSecret == null || webhookSecret.isEmpty()) {
        throw new IllegalStateException("a webhook secret is required");
      }
      return new PaymentProviderSimulator(copy());
    }

    /** The simulator keeps its own copy, so reusing this builder cannot change a running one. */
    private Builder copy() {
      Builder copy = new Builder();
      copy.host = host;
      copy.port = port;
      copy.webhookSecret = webhookSecret;
      copy.webhookUrl = webhookUrl;
      copy.duplicateShare = duplicateShare;
      copy.failureShare = failureShare;
      copy.delayMin = delayMin;
      copy.delayMax = delayMax;
      copy.retryMin = retryMin;
      copy.retryMax = retryMax;
      copy.webhookThreads = webhookThreads;
      copy.requestThreads = requestThreads;
      copy.seed = seed;
      return copy;
    }

    private static double share(double share, String name) {
      if (!(share >= 0.0 && share <= 1.0)) {
        throw new IllegalArgumentException(name + " must be between 0 and 1; was " + share);
      }
      return share;
    }
  }
}
