package dev.inboxoutbox.chaos.verify;

import dev.inboxoutbox.chaos.fault.FaultLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a run must have done before its PASS means something: enough faults of each kind, hitting
 * work in flight, enough duplicates from enough sources, enough orders. A floor a run claims and
 * misses makes it {@link Verdict#INCONCLUSIVE}; a floor it does not claim (its fault kind not
 * chosen, a profile that does not claim it) is printed with the reason instead of a count.
 *
 * @param claimed the floors this run claims, each with the count it needs
 * @param unclaimed the floors it does not claim, each with the reason
 */
public record ProofFloors(Map<Floor, Long> claimed, Map<Floor, String> unclaimed) {

  /** The window the default counts are for: a shorter window claims proportionally less. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(120);

  /** The floors, each with the count the default run (its full window) claims. */
  public enum Floor {
    PROCESS_FAULTS("process faults on serving instances with orders in flight", 20),
    POSTGRES_CRASHES("PostgreSQL crashes", 2),
    BROKER_LEADER_KILLS("kills of the broker leading the busiest partitions", 2),
    NETWORK_FAULTS("network faults", 8),
    DUPLICATE_SOURCES("sources of absorbed duplicates", 4),
    ORDERS_SETTLED("orders settled", 3000);

    private final String description;
    private final long defaultCount;

    Floor(String description, long defaultCount) {
      this.description = description;
      this.defaultCount = defaultCount;
    }

    public String description() {
      return description;
    }

    public long defaultCount() {
      return defaultCount;
    }
  }

  /**
   * One floor after the run.
   *
   * @param floor what it counts
   * @param required the count it needs, or null when not claimed
   * @param count what the run did
   * @param note why it is not claimed, or empty
   */
  public record Result(String floor, Long required, long count, String note) {

    /** Whether the run claims this floor. */
    public boolean claimed() {
      return required != null;
    }

    /** Met, or not claimed: only a claimed floor can be missed. */
    public boolean met() {
      return required == null || count >= required;
    }

    /** {@code met}, {@code MISSED} or {@code not claimed}. */
    public String state() {
      return !claimed() ? "not claimed" : met() ? "met" : "MISSED";
    }
  }

  public ProofFloors {
    claimed = Collections.unmodifiableMap(new EnumMap<>(copy(claimed)));
    unclaimed = Collections.unmodifiableMap(new EnumMap<>(copy(unclaimed)));
    for (Floor floor : Floor.values()) {
      if (claimed.containsKey(floor) == unclaimed.containsKey(floor)) {
        throw new IllegalArgumentException(
            floor + " must be either claimed or unclaimed with a reason");
      }
    }
  }

  private static <V> Map<Floor, V> copy(Map<Floor, V> map) {
    return map.isEmpty() ? new EnumMap<>(Floor.class) : new EnumMap<>(map);
  }

  /** No floor claimed, for the one reason given (a negative control, a smoke run). */
  public static ProofFloors none(String reason) {
    Map<Floor, String> unclaimed = new EnumMap<>(Floor.class);
    for (Floor floor : Floor.values()) {
      unclaimed.put(floor, reason);
    }
    return new ProofFloors(Map.of(), unclaimed);
  }

  /** Every floor at its default count. */
  public static ProofFloors defaults() {
    Map<Floor, Long> claimed = new EnumMap<>(Floor.class);
    for (Floor floor : Floor.values()) {
      claimed.put(floor, floor.defaultCount());
    }
    return new ProofFloors(claimed, Map.of());
  }

  /**
   * The default floors less those the chosen faults cannot reach: a fault kind not chosen claims no
   * floor of its kind, and duplicates from every source need kills (Kafka redeliveries, relay
   * resends), client retries and webhook copies.
   */
  public static ProofFloors forFaults(
      Set<FaultLog.Kind> kinds,
      boolean networkFaults,
      double retryShare,
      double webhookDuplicateShare) {
    ProofFloors floors = defaults();
    if (!kinds.contains(FaultLog.Kind.PROCESS_KILL)) {
      floors = floors.without(Floor.PROCESS_FAULTS, "process-kill not among the faults");
    }
    if (!kinds.contains(FaultLog.Kind.POSTGRES_CRASH)) {
      floors = floors.without(Floor.POSTGRES_CRASHES, "postgres-crash not among the faults");
    }
    if (!kinds.contains(FaultLog.Kind.BROKER_KILL)) {
      floors = floors.without(Floor.BROKER_LEADER_KILLS, "broker-kill not among the faults");
    }
    if (!networkFaults) {
      floors = floors.without(Floor.NETWORK_FAULTS, "no network faults");
    }
    if (!kinds.contains(FaultLog.Kind.PROCESS_KILL)
        || retryShare == 0
        || webhookDuplicateShare == 0) {
      floors =
          floors.without(
              Floor.DUPLICATE_SOURCES, "needs process-kill, client retries and webhook duplicates");
    }
    return floors;
  }

  /** The same floors with {@code floor} not claimed, for {@code reason}. */
  public ProofFloors without(Floor floor, String reason) {
    Map<Floor, Long> fewer = new EnumMap<>(Floor.class);
    fewer.putAll(claimed);
    fewer.remove(floor);
    Map<Floor, String> reasons = new EnumMap<>(Floor.class);
    reasons.putAll(unclaimed);
    reasons.putIfAbsent(floor, reason);
    return new ProofFloors(fewer, reasons);
  }

  /**
   * The floors scaled to a share of the default window (a shorter window claims proportionally
   * less, at least one of each); a share of 1 or more keeps the default counts.
   */
  public ProofFloors scaled(double windowShare) {
    if (windowShare >= 1) {
      return this;
    }
    Map<Floor, Long> scaled = new EnumMap<>(Floor.class);
    claimed.forEach(
        (floor, count) ->
            scaled.put(
                floor,
                floor == Floor.DUPLICATE_SOURCES
                    ? count
                    : Math.max(1, (long) Math.ceil(count * windowShare))));
    return new ProofFloors(scaled, unclaimed);
  }

  /** Each floor against what the run counted; a floor without a count counts 0. */
  public List<Result> evaluate(Map<Floor, Long> counts) {
    List<Result> results = new ArrayList<>();
    for (Floor floor : Floor.values()) {
      long count = counts.getOrDefault(floor, 0L);
      results.add(
          new Result(
              floor.description(), claimed.get(floor), count, unclaimed.getOrDefault(floor, "")));
    }
    return results;
  }
}
