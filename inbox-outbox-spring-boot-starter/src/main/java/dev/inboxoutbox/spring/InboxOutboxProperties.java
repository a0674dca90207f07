package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.TooOldPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings under {@code inbox-outbox.*}; every one has a default that works. */
@ConfigurationProperties("inbox-outbox")
public class InboxOutboxProperties {

  private final Schema schema = new Schema();
  private final Inbox inbox = new Inbox();
  private final Outbox outbox = new Outbox();
  private final Consumer consumer = new Consumer();
  private final Relay relay = new Relay();
  private final Retention retention = new Retention();
  private final Chaos chaos = new Chaos();

  public Chaos getChaos() {
    return chaos;
  }

  /** Crash injection for chaos runs; empty (off) by default. */
  public static class Chaos {
    /**
     * Probability per crash point that the JVM halts there, e.g.
     * inbox-outbox.chaos.crash-points.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT=0.002. Never in
     * production.
     */
    private Map<dev.inboxoutbox.consumer.CrashPoint, Double> crashPoints = new LinkedHashMap<>();

    /**
     * If set, crash points fire only while this file exists: a chaos harness removes it when its
     * kill phase is over, so that nothing halts while the run drains.
     */
    private Path armingFile;

    public Map<dev.inboxoutbox.consumer.CrashPoint, Double> getCrashPoints() {
      return crashPoints;
    }

    public void setCrashPoints(Map<dev.inboxoutbox.consumer.CrashPoint, Double> crashPoints) {
      this.crashPoints = crashPoints;
    }

    public Path getArmingFile() {
      return armingFile;
    }

    public void setArmingFile(Path armingFile) {
      this.armingFile = armingFile;
    }
  }

  public Schema getSchema() {
    return schema;
  }

  public Inbox getInbox() {
    return inbox;
  }

  public Outbox getOutbox() {
    return outbox;
  }

  public Consumer getConsumer() {
    return consumer;
  }

  public Relay getRelay() {
    return relay;
  }

  public Retention getRetention() {
    return retention;
  }

  /** The framework's tables. */
  public static class Schema {
    /** Apply the inbox/outbox Flyway migrations (history table iox_schema_history) at start-up. */
    private boolean migrate = true;

    public boolean isMigrate() {
      return migrate;
    }

    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }
  }

  /** Key lifetimes, by default and per operation (scope). */
  public static class Inbox {
    /** How long a stored outcome body is replayed to duplicates. */
    private Duration outcomeTtl = dev.inboxoutbox.inbox.Inbox.Retention.DEFAULT_OUTCOME_TTL;

    /** How long a key is remembered; messages older than this are too old to apply. */
    private Duration keyTtl = dev.inboxoutbox.inbox.Inbox.Retention.DEFAULT_KEY_TTL;

    /** Overrides per operation, e.g. inbox-outbox.inbox.operations.payment-consumer.key-ttl=31d. */
    private Map<String, Ttl> operations = new LinkedHashMap<>();

    public Duration getOutcomeTtl() {
      return outcomeTtl;
    }

    public void setOutcomeTtl(Duration outcomeTtl) {
      this.outcomeTtl = outcomeTtl;
    }

    public Duration getKeyTtl() {
      return keyTtl;
    }

    public void setKeyTtl(Duration keyTtl) {
      this.keyTtl = keyTtl;
    }

    public Map<String, Ttl> getOperations() {
      return operations;
    }

    public void setOperations(Map<String, Ttl> operations) {
      this.operations = operations;
    }
  }

  /** Lifetimes of one operation's keys. */
  public static class Ttl {
    /** How long the outcome body is kept. */
    private Duration outcomeTtl = dev.inboxoutbox.inbox.Inbox.Retention.DEFAULT_OUTCOME_TTL;

    /** How long the key is kept. */
    private Duration keyTtl = dev.inboxoutbox.inbox.Inbox.Retention.DEFAULT_KEY_TTL;

    public Duration getOutcomeTtl() {
      return outcomeTtl;
    }

    public void setOutcomeTtl(Duration outcomeTtl) {
      this.outcomeTtl = outcomeTtl;
    }

    public Duration getKeyTtl() {
      return keyTtl;
    }

    public void setKeyTtl(Duration keyTtl) {
      this.keyTtl = keyTtl;
    }
  }

  /** The outbox writer. */
  public static class Outbox {
    /** KEEP rows for inspection (retention deletes them) or DELETE_AFTER_INSERT. */
    private dev.inboxoutbox.outbox.Outbox.Policy policy = dev.inboxoutbox.outbox.Outbox.Policy.KEEP;

    public dev.inboxoutbox.outbox.Outbox.Policy getPolicy() {
      return policy;
    }

    public void setPolicy(dev.inboxoutbox.outbox.Outbox.Policy policy) {
      this.policy = policy;
    }
  }

  /** Defaults for every idempotent consumer (each definition may override in code). */
  public static class Consumer {
    /** Header carrying the idempotency key. */
    private String keyHeader = dev.inboxoutbox.inbox.IdempotencyKey.HEADER;

    /** Header whose value scopes keys by tenant; empty = no tenant. */
    private String tenantHeader = "";

    /** Header whose value scopes keys by sender; empty = none. */
    private String principalHeader = "";

    /** Larger payloads are dead-lettered as OVERSIZE. */
    private int maxPayloadBytes = 1024 * 1024;

    /** What to do with a record older than its key TTL. */
    private TooOldPolicy tooOldPolicy = TooOldPolicy.DEAD_LETTER;

    /** Dead letters of topic t go to t + suffix. */
    private String deadLetterSuffix = ".DLT";

    /** First pause after a transient database failure (doubles). */
    private Duration retryBackoffMin = Duration.ofMillis(200);

    /** Largest pause after transient database failures. */
    private Duration retryBackoffMax = Duration.ofSeconds(10);

    /**
     * A partition whose batch keeps failing this long makes the consumer stuck (health DOWN); a
     * dead letter Kafka refuses for good makes it stuck at once.
     */
    private Duration stuckAfter = Duration.ofMinutes(1);

    /**
     * Listener threads per consumer definition (at most the partition count is useful); unset, the
     * container factory's ({@code spring.kafka.listener.concurrency}, 1 by default).
     */
    private Integer concurrency;

    /** Turns the inbox off: for the chaos negative control only, never in production. */
    private boolean dedupEnabled = true;

    public String getKeyHeader() {
      return keyHeader;
    }

    public void setKeyHeader(String keyHeader) {
      this.keyHeader = keyHeader;
    }

    public String getTenantHeader() {
      return tenantHeader;
    }

    public void setTenantHeader(String tenantHeader) {
      this.tenantHeader = tenantHeader;
    }

    public String getPrincipalHeader() {
      return principalHeader;
    }

    public void setPrincipalHeader(String principalHeader) {
      this.principalHeader = principalHeader;
    }

    public int getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }

    public TooOldPolicy getTooOldPolicy() {
      return tooOldPolicy;
    }

    public void setTooOldPolicy(TooOldPolicy tooOldPolicy) {
      this.tooOldPolicy = tooOldPolicy;
    }

    public String getDeadLetterSuffix() {
      return deadLetterSuffix;
    }

    public void setDeadLetterSuffix(String deadLetterSuffix) {
      this.deadLetterSuffix = deadLetterSuffix;
    }

    public Duration getRetryBackoffMin() {
      return retryBackoffMin;
    }

    public void setRetryBackoffMin(Duration retryBackoffMin) {
      this.retryBackoffMin = retryBackoffMin;
    }

    public Duration getRetryBackoffMax() {
      return retryBackoffMax;
    }

    public void setRetryBackoffMax(Duration retryBackoffMax) {
      this.retryBackoffMax = retryBackoffMax;
    }

    public Duration getStuckAfter() {
      return stuckAfter;
    }

    public void setStuckAfter(Duration stuckAfter) {
      this.stuckAfter = stuckAfter;
    }

    public Integer getConcurrency() {
      return concurrency;
    }

    public void setConcurrency(Integer concurrency) {
      this.concurrency = concurrency;
    }

    public boolean isDedupEnabled() {
      return dedupEnabled;
    }

    public void setDedupEnabled(boolean dedupEnabled) {
      this.dedupEnabled = dedupEnabled;
    }
  }

  /** The Debezium outbox relay; off unless enabled. */
  public static class Relay {
    /** Run the relay in this application (one instance per database leads, the others stand by). */
    private boolean enabled = false;

    /** Database of the outbox; defaults to spring.datasource.url. */
    private String jdbcUrl;

    /** A role with REPLICATION; defaults to spring.datasource.username. */
    private String username;

    /** Defaults to spring.datasource.password. */
    private String password;

    /** Default iox_outbox_<database>. */
    private String slotName;

    /** Created by the schema migration. */
    private String publicationName = "iox_outbox";

    /** Topic per aggregate type; ${routedByValue} is the aggregate type. */
    private String topicReplacement = "outbox.event.${routedByValue}";

    /** How often acknowledged offsets are stored. */
    private Duration offsetFlushInterval = Duration.ofSeconds(1);

    /**
     * How often the relay's heartbeat writes iox_relay_heartbeat; while the outbox is quiet the
     * slot is confirmed past WAL written elsewhere within two intervals.
     */
    private Duration heartbeatInterval = Duration.ofSeconds(10);

    /** How often a standby tries to take leadership. */
    private Duration standbyPollInterval = Duration.ofMillis(500);

    /** First pause before restarting a failed run (doubles). */
    private Duration restartBackoffMin = Duration.ofMillis(500);

    /** Largest pause before restarting a failed run. */
    private Duration restartBackoffMax = Duration.ofSeconds(30);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getJdbcUrl() {
      return jdbcUrl;
    }

    public void setJdbcUrl(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public String getSlotName() {
      return slotName;
    }

    public void setSlotName(String slotName) {
      this.slotName = slotName;
    }

    public String getPublicationName() {
      return publicationName;
    }

    public void setPublicationName(String publicationName) {
      this.publicationName = publicationName;
    }

    public String getTopicReplacement() {
      return topicReplacement;
    }

    public void setTopicReplacement(String topicReplacement) {
      this.topicReplacement = topicReplacement;
    }

    public Duration getOffsetFlushInterval() {
      return offsetFlushInterval;
    }

    public void setOffsetFlushInterval(Duration offsetFlushInterval) {
      this.offsetFlushInterval = offsetFlushInterval;
    }

    public Duration getHeartbeatInterval() {
      return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getStandbyPollInterval() {
      return standbyPollInterval;
    }

    public void setStandbyPollInterval(Duration standbyPollInterval) {
      this.standbyPollInterval = standbyPollInterval;
    }

    public Duration getRestartBackoffMin() {
      return restartBackoffMin;
    }

    public void setRestartBackoffMin(Duration restartBackoffMin) {
      this.restartBackoffMin = restartBackoffMin;
    }

    public Duration getRestartBackoffMax() {
      return restartBackoffMax;
    }

    public void setRestartBackoffMax(Duration restartBackoffMax) {
      this.restartBackoffMax = restartBackoffMax;
    }
  }

  /** The periodic cleanup of expired keys, outcome bodies and published outbox rows. */
  public static class Retention {
    /**
     * Run the cleanup in this application (safe on several instances: batches skip locked rows).
     */
    private boolean enabled = true;

    /** Pause between two runs. */
    private Duration interval = Duration.ofMinutes(5);

    /** Rows per batch (each its own transaction). */
    private int batchSize = 1000;

    /** Bound on one run. */
    private int maxBatchesPerRun = 1000;

    /** Sleep between batches. */
    private Duration pauseBetweenBatches = Duration.ZERO;

    /** How long published outbox rows are kept. */
    private Duration outboxKeep = Duration.ofDays(7);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public int getMaxBatchesPerRun() {
      return maxBatchesPerRun;
    }

    public void setMaxBatchesPerRun(int maxBatchesPerRun) {
      this.maxBatchesPerRun = maxBatchesPerRun;
    }

    public Duration getPauseBetweenBatches() {
      return pauseBetweenBatches;
    }

    public void setPauseBetweenBatches(Duration pauseBetweenBatches) {
      this.pauseBetweenBatches = pauseBetweenBatches;
    }

    public Duration getOutboxKeep() {
      return outboxKeep;
    }

    public void setOutboxKeep(Duration outboxKeep) {
      this.outboxKeep = outboxKeep;
    }
  }
}
