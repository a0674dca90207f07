package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatTest {

  /** A postmaster's line (Linux 6.x, 52 fields): its own CPU and that of the backends it reaped. */
  @Test
  void readsTheOwnAndReapedCpuAndTheStartOfALine() {
    ProcStat stat =
        ProcStat.parse(
            "4242 (postgres) S 1 4242 4242 0 -1 4194560 9215 1183711 0 6 137 58 4211 2395 20 0 1"
                + " 0 1320034 221417472 6869 18446744073709551615 1 1 0 0 0 0 4194304 19935744"
                + " 1536 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");

    assertThat(stat).isEqualTo(new ProcStat(4242, "postgres", 137, 58, 4211, 2395, 1320034));
    assertThat(stat.ownTicks()).isEqualTo(195);
    assertThat(stat.withReapedChildrenTicks()).isEqualTo(195 + 4211 + 2395);
  }

  /**
   * The command is the executable's name, and a process may name itself anything: spaces and
   * parentheses of its own end only at the line's last closing parenthesis.
   */
  @Test
  void aCommandWithSpacesAndParenthesesEndsAtTheLastClosingOne() {
    ProcStat stat =
        ProcStat.parse(
            "77 (a (b) c) d)) R 1 77 77 0 -1 0 0 0 0 0 12 3 1 2 20 0 9 0 5555 0 0 0 0 0 0 0 0 0 0 0"
                + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");

    assertThat(stat.pid()).isEqualTo(77);
    assertThat(stat.command()).isEqualTo("a (b) c) d)");
    assertThat(stat.ownTicks()).isEqualTo(15);
    assertThat(stat.withReapedChildrenTicks()).isEqualTo(18);
    assertThat(stat.startTicks()).isEqualTo(5555);
  }

  @Test
  void aLineCutShortOrWithoutItsCommandIsRefusedWithTheLine() {
    assertThatThrownBy(() -> ProcStat.parse("77 (java) S 1 77 77 0 -1 0 0 0 0 0 12 3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 22 expected")
        .hasMessageContaining("77 (java) S");
    assertThatThrownBy(() -> ProcStat.parse("cpu  1 2 3 4"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a line of /proc/<pid>/stat");
  }

  /** This JVM's own line, where there is one: it has used some CPU to get here. */
  @Test
  void readsALiveProcessAndNothingForOneThatIsGone() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/stat")), "Linux only");
    long self = ProcessHandle.current().pid();

    assertThat(ProcStat.read(self))
        .hasValueSatisfying(
            stat -> {
              assertThat(stat.pid()).isEqualTo(self);
              assertThat(stat.ownTicks()).isPositive();
            });
    assertThat(ProcStat.read(Long.MAX_VALUE)).isEmpty();
  }
}
