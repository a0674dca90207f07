package dev.inboxoutbox.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ResumePositionTest {

  @Test
  void aHeartbeatAtACommitIsStoredAndConfirmedOneByteInsideTheCommitRecord() {
    Map<String, Object> heartbeat =
        Map.of(
            "lsn_proc", 24_185_752L,
            "lsn_commit", 24_185_752L,
            "lsn", 24_185_752L,
            "messageType", "COMMIT",
            "txId", 743L,
            "ts_usec", 1_795_420_049_328_135L);

    assertThat(ResumePosition.unambiguous(heartbeat))
        .hasValue(
            Map.of(
                "lsn_proc", 24_185_751L,
                "lsn_commit", 24_185_751L,
                "lsn", 24_185_752L,
                "messageType", "COMMIT",
                "txId", 743L,
                "ts_usec", 1_795_420_049_328_135L));
  }

  @Test
  void theOffsetOfARowIsKept() {
    // A row's position is where its own WAL record starts: no other message carries it.
    Map<String, Object> row =
        Map.of(
            "lsn_proc", 24_185_368L,
            "lsn_commit", 24_184_936L,
            "lsn", 24_185_368L,
            "messageType", "INSERT",
            "txId", 743L);

    assertThat(ResumePosition.unambiguous(row)).isEmpty();
  }

  @Test
  void aCommitWhosePositionIsNotItsOwnEndIsKept() {
    Map<String, Object> offset =
        Map.of("lsn_proc", 24_185_368L, "lsn_commit", 24_184_936L, "messageType", "COMMIT");

    assertThat(ResumePosition.unambiguous(offset)).isEmpty();
  }

  @Test
  void noOffsetOrOneWithoutPositionsIsKept() {
    assertThat(ResumePosition.unambiguous(null)).isEmpty();
    assertThat(ResumePosition.unambiguous(Map.of("messageType", "COMMIT"))).isEmpty();
  }
}
