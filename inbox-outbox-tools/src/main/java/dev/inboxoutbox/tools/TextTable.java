package dev.inboxoutbox.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows printed for a terminal: each column as wide as its widest cell, two spaces between columns,
 * long cells cut with an ellipsis so one wide value does not push the rest off the screen.
 */
final class TextTable {

  static final int MAX_CELL = 60;
  private static final String NULL = "-";

  private final List<String> columns;
  private final List<List<String>> rows = new ArrayList<>();

  TextTable(List<String> columns) {
    this.columns = List.copyOf(columns);
  }

  void add(List<?> row) {
    if (row.size() != columns.size()) {
      throw new IllegalArgumentException(
          "a row of " + row.size() + " cells for " + columns.size() + " columns");
    }
    List<String> cells = new ArrayList<>(row.size());
    for (Object value : row) {
      cells.add(cell(value));
    }
    rows.add(cells);
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintStream out) {
    int[] widths = new int[columns.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = columns.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    out.println(line(columns, widths));
    for (List<String> row : rows) {
      out.println(line(row, widths));
    }
    if (rows.isEmpty()) {
      out.println("(none)");
    }
  }

  private static String line(List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        line.append("  ");
      }
      line.append(cells.get(i)).append(" ".repeat(widths[i] - cells.get(i).length()));
    }
    return line.toString().stripTrailing();
  }

  /** One line of at most {@link #MAX_CELL} characters; control characters become spaces. */
  static String cell(Object value) {
    if (value == null) {
      return NULL;
    }
    String text = value.toString().replaceAll("\\p{Cntrl}", " ");
    return text.length() <= MAX_CELL ? text : text.substring(0, MAX_CELL - 1) + "…";
  }
}
