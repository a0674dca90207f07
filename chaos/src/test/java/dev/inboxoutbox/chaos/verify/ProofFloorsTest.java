package dev.inboxoutbox.chaos.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.verify.ProofFloors.Floor;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProofFloorsTest {

  private static final Invariant HELD =
      Invariant.of("one order per distinct accepted key", 1, 0, "");
  private static final Invariant VIOLATED =
      Invariant.of("one order per distinct accepted key", 1, 2, "2 keys with more than one order");

  private static Map<Floor, Long> everyFloorMet() {
    Map<Floor, Long> counts = new EnumMap<>(Floor.class);
    for (Floor floor : Floor.values()) {
      counts.put(floor, floor.defaultCount());
    }
    return counts;
  }

  @Test
  void everyInvariantHeldAndEveryFloorMetPasses() {
    List<ProofFloors.Result> floors = ProofFloors.defaults().evaluate(everyFloorMet());

    assertThat(floors).allMatch(ProofFloors.Result::met);
    assertThat(Verdict.of(List.of(HELD), floors)).isEqualTo(Verdict.PASS);
  }

  @Test
  void aMissedFloorWithEveryInvariantHeldIsInconclusiveNeverPass() {
    Map<Floor, Long> counts = everyFloorMet();
    counts.put(Floor.POSTGRES_CRASHES, 1L);
    List<ProofFloors.Result> floors = ProofFloors.defaults().evaluate(counts);

    assertThat(floors)
        .filteredOn(floor -> !floor.met())
        .singleElement()
        .satisfies(
            floor -> {
              assertThat(floor.floor()).isEqualTo("PostgreSQL crashes");
              assertThat(floor.state()).isEqualTo("MISSED");
              assertThat(floor.count()).isEqualTo(1);
              assertThat(floor.required()).isEqualTo(2);
            });
    assertThat(Verdict.of(List.of(HELD), floors)).isEqualTo(Verdict.INCONCLUSIVE);
  }

  @Test
  void aViolatedInvariantFailsWhateverTheFloors() {
    List<ProofFloors.Result> missed = ProofFloors.defaults().evaluate(Map.of());
    List<ProofFloors.Result> met = ProofFloors.defaults().evaluate(everyFloorMet());

    assertThat(Verdict.of(List.of(HELD, VIOLATED), missed)).isEqualTo(Verdict.FAIL);
    assertThat(Verdict.of(List.of(VIOLATED), met)).isEqualTo(Verdict.FAIL);
  }

  @Test
  void theExitCodesAreDistinctFromFailAndFromAStop() {
    assertThat(Verdict.PASS.exitCode()).isZero();
    assertThat(Verdict.FAIL.exitCode()).isEqualTo(1);
    assertThat(Verdict.INCONCLUSIVE.exitCode()).isNotIn(0, 1, 2, 130);
  }

  @Test
  void aFloorNotClaimedCannotBeMissedAndSaysWhy() {
    ProofFloors floors =
        ProofFloors.forFaults(
            FaultOptions.parseKinds("process-kill,crash-point,postgres-crash"), true, 0.1, 0.3);

    List<ProofFloors.Result> results = floors.evaluate(everyFloorMet());
    assertThat(results)
        .filteredOn(result -> result.floor().equals(Floor.BROKER_LEADER_KILLS.description()))
        .singleElement()
        .satisfies(
            result -> {
              assertThat(result.claimed()).isFalse();
              assertThat(result.met()).isTrue();
              assertThat(result.state()).isEqualTo("not claimed");
              assertThat(result.note()).isEqualTo("broker-kill not among the faults");
            });
    Map<Floor, Long> noBrokerKill = everyFloorMet();
    noBrokerKill.put(Floor.BROKER_LEADER_KILLS, 0L);
    assertThat(Verdict.of(List.of(HELD), floors.evaluate(noBrokerKill))).isEqualTo(Verdict.PASS);
  }

  @Test
  void withoutKillsOrNetworkFaultsTheirFloorsAndTheDuplicateSourcesAreNotClaimed() {
    ProofFloors floors =
        ProofFloors.forFaults(FaultOptions.parseKinds("postgres-crash"), false, 0.1, 0.3);

    assertThat(floors.unclaimed())
        .containsOnlyKeys(
            Floor.PROCESS_FAULTS,
            Floor.BROKER_LEADER_KILLS,
            Floor.NETWORK_FAULTS,
            Floor.DUPLICATE_SOURCES);
    assertThat(floors.claimed()).containsOnlyKeys(Floor.POSTGRES_CRASHES, Floor.ORDERS_SETTLED);
  }

  @Test
  void aShorterWindowClaimsProportionallyLessButAtLeastOneAndAllSources() {
    ProofFloors half = ProofFloors.defaults().scaled(0.5);

    assertThat(half.claimed())
        .containsEntry(Floor.PROCESS_FAULTS, 10L)
        .containsEntry(Floor.POSTGRES_CRASHES, 1L)
        .containsEntry(Floor.NETWORK_FAULTS, 4L)
        .containsEntry(Floor.ORDERS_SETTLED, 1500L)
        .containsEntry(Floor.DUPLICATE_SOURCES, 4L);
    assertThat(ProofFloors.defaults().scaled(0.01).claimed())
        .containsEntry(Floor.BROKER_LEADER_KILLS, 1L);
    assertThat(ProofFloors.defaults().scaled(5).claimed())
        .as("a longer window keeps the default floors")
        .isEqualTo(ProofFloors.defaults().claimed());
  }

  @Test
  void noFloorsClaimsNothingAndSaysWhy() {
    List<ProofFloors.Result> results = ProofFloors.none("a smoke run").evaluate(Map.of());

    assertThat(results).hasSize(Floor.values().length).allMatch(result -> !result.claimed());
    assertThat(results).extracting(ProofFloors.Result::note).containsOnly("a smoke run");
  }
}
