package dev.inboxoutbox.testing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/** One-value queries for assertions on what a test's database holds. */
public final class Rows {

  private Rows() {}

  /** The number a {@code SELECT count(*) ...} answers, with its parameters bound in order. */
  public static long count(DataSource database, String sql, Object... parameters) {
    return Long.parseLong(
        text(database, sql, parameters)
            .orElseThrow(() -> new IllegalStateException("no count from: " + sql)));
  }

  /** The first column of the first row as text; empty without a row (or for a null value). */
  public static Optional<String> text(DataSource database, String sql, Object... parameters) {
    try (Connection connection = database.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        query.setObject(i + 1, parameters[i]);
      }
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? Optional.ofNullable(row.getString(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("query failed: " + sql, e);
    }
  }
}
