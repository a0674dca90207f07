package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextTableTest {

  @Test
  void eachColumnIsAsWideAsItsWidestCellWithTwoSpacesBetween() {
    TextTable table = new TextTable(List.of("id", "status"));
    table.add(List.of("3f2b8c1e-7d4a-4f0e-9a61-5c2d8e9b0a17", "COMPLETED"));
    table.add(Arrays.asList("short", null));

    assertThat(printed(table))
        .isEqualTo(
            """
            id                                    status
            3f2b8c1e-7d4a-4f0e-9a61-5c2d8e9b0a17  COMPLETED
            short                                 -
            """);
  }

  @Test
  void aLongCellIsCutWithAnEllipsisAndLineBreaksBecomeSpaces() {
    assertThat(TextTable.cell("x".repeat(100))).hasSize(TextTable.MAX_CELL).endsWith("…");
    assertThat(TextTable.cell("two\nlines")).isEqualTo("two lines");
  }

  @Test
  void anEmptyTableSaysNone() {
    assertThat(printed(new TextTable(List.of("a", "b")))).isEqualTo("a  b\n(none)\n");
  }

  private static String printed(TextTable table) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    table.print(new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }
}
