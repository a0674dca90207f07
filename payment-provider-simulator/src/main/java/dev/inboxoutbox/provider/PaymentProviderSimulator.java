package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inboxoutbox.webhook.WebhookSignature;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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
 *   <li>{@code POST /v1/refunds} with {@code Idempotency-Key}: gives back (part of) a succeeded
 *       charge, once per key, never more than the charge took; the same replay rules as charges.
 *   <li>{@code GET /v1/ledger}: every charge and every refund made, in order.
 *   <li>Webhooks {@code charge.succeeded} / {@code charge.failed} / {@code refund.succeeded},
 *       signed with {@link WebhookSignature}, delivered at-least-once by a {@link
 *       WebhookDispatcher}.
 * </ul>
 *
 * <p>Whether a charge fails is decided from the seed and the idempotency key, never from a shared
 * random sequence: the same key fails or succeeds on every run, whatever the request order.
 *
 * <p>The HTTP layer ({@link ProviderHttpServer}, {@link ChargesEndpoint}, {@link LedgerEndpoint})
 * only translates; the provider's state (charges, ledger, webhook emission) is the {@link
 * ChargeBook}.
 */
public final class PaymentProviderSimulator implements AutoCloseable {

  public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

  private static final Logger log = LoggerFactory.getLogger(PaymentProviderSimulator.class);

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

  private final ProviderSettings settings;
  private final WebhookDispatcher webhooks;
  private final ChargeBook charges;
  private final RefundBook refunds;
  private final JsonResponses responses;
  private final ChargesEndpoint chargesEndpoint;
  private final RefundsEndpoint refundsEndpoint;
  private final LedgerEndpoint ledgerEndpoint;
  private ProviderHttpServer server;

  private PaymentProviderSimulator(ProviderSettings settings) {
    this.settings = settings;
    this.webhooks =
        new WebhookDispatcher(
            new WebhookSignature(settings.webhookSecret()),
            settings.webhookUrl(),
            settings.duplicateShare(),
            settings.delayMin(),
            settings.delayMax(),
            settings.retryMin(),
            settings.retryMax(),
            settings.webhookThreads(),
            settings.seed());
    ObjectMapper json = new ObjectMapper();
    this.charges = new ChargeBook(json, settings.seed(), settings.failureShare(), webhooks);
    this.refunds = new RefundBook(json, settings.seed(), charges, webhooks);
    this.responses = new JsonResponses(json);
    this.chargesEndpoint = new ChargesEndpoint(json, responses, charges);
    this.refundsEndpoint = new RefundsEndpoint(json, responses, refunds);
    this.ledgerEndpoint = new LedgerEndpoint(responses, charges, refunds);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Binds the port and starts serving; returns this for chaining. */
  public synchronized PaymentProviderSimulator start() {
    if (server != null) {
      throw new IllegalStateException("the simulator is already started");
    }
    server =
        ProviderHttpServer.start(
            settings.host(),
            settings.port(),
            settings.requestThreads(),
            responses,
            chargesEndpoint,
            refundsEndpoint,
            ledgerEndpoint);
    log.info(
        "payment provider simulator on port {}; webhooks to {} (duplicate share {}, delay {}-{} ms, failure share {}, seed {})",
        port(),
        webhooks.target(),
        settings.duplicateShare(),
        settings.delayMin().toMillis(),
        settings.delayMax().toMillis(),
        settings.failureShare(),
        settings.seed());
    return this;
  }

  /** The bound port (useful after {@code port(0)}). */
  public synchronized int port() {
    if (server == null) {
      throw new IllegalStateException("the simulator is not started");
    }
    return server.port();
  }

  /** {@code http://localhost:<port>}, the base URL clients call. */
  public URI baseUrl() {
    return URI.create("http://localhost:" + port());
  }

  /** Every charge made so far, in the order they were made. */
  public List<LedgerEntry> ledger() {
    return charges.ledger();
  }

  /** The ledger entries of one payment; a correct client leaves at most one. */
  public List<LedgerEntry> ledgerFor(String paymentId) {
    return charges.ledger().stream().filter(entry -> entry.paymentId().equals(paymentId)).toList();
  }

  /** Every refund made so far, in the order they were made. */
  public List<RefundEntry> refunds() {
    return refunds.ledger();
  }

  /** The refunds of one payment's charges; a correct client leaves at most one. */
  public List<RefundEntry> refundsFor(String paymentId) {
    return refunds.ledger().stream().filter(entry -> entry.paymentId().equals(paymentId)).toList();
  }

  /**
   * How a charge under this idempotency key ends (or ended): decided by the seed, the key and the
   * failure share alone, so tests and verifiers can predict which payments must fail.
   */
  public ChargeStatus outcomeFor(String idempotencyKey) {
    return charges.outcomeFor(idempotencyKey);
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
   * Simulates an outage: while on, {@code POST /v1/charges} and {@code POST /v1/refunds} answer
   * {@code 503} without touching the ledger or the idempotency keys, as a provider behind a failing
   * load balancer would.
   */
  public void outage(boolean on) {
    chargesEndpoint.outage(on);
    refundsEndpoint.outage(on);
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.close();
    }
    webhooks.close();
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
      return new PaymentProviderSimulator(
          new ProviderSettings(
              host,
              port,
              webhookSecret,
              webhookUrl,
              duplicateShare,
              failureShare,
              delayMin,
              delayMax,
              retryMin,
              retryMax,
              webhookThreads,
              requestThreads,
              seed));
    }

    private static double share(double share, String name) {
      if (!(share >= 0.0 && share <= 1.0)) {
        throw new IllegalArgumentException(name + " must be between 0 and 1; was " + share);
      }
      return share;
    }
  }
}
