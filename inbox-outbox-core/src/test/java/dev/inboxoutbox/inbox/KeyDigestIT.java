package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The claim computes a key's digest in Java, the trigger and the upgrade with SQL function {@code
 * inbox_key_hash}: a row written one way must be found the other, so both give the same bytes.
 */
class KeyDigestIT {

  private static Database database;

  @BeforeAll
  static void createDatabase() {
    database = MigratedDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void javaAndTheSqlFunctionGiveTheSameDigest() throws SQLException {
    List<Scope> scopes =
        List.of(
            Scope.of("order-consumer"),
            Scope.of("acme", "", "payments"),
            Scope.of("", "user-7", "payments"),
            Scope.of("ab", "c", "op"),
            Scope.of("a", "bc", "op"),
            Scope.of("テナント", "ünïcødé", "opération"));
    List<String> keys =
        List.of("k", "3f2b8c1e-7d4a-4f0e-9a61-5c2d8e9b0a17", "ключ-😀", "x".repeat(255));
    try (Connection connection = database.connect();
        PreparedStatement statement =
            connection.prepareStatement("SELECT inbox_key_hash(?, ?, ?, ?)")) {
      for (Scope scope : scopes) {
        for (String value : keys) {
          IdempotencyKey key = IdempotencyKey.of(value);
          statement.setString(1, scope.tenant());
          statement.setString(2, scope.principal());
          statement.setString(3, scope.operation());
          statement.setString(4, key.value());
          try (ResultSet result = statement.executeQuery()) {
            result.next();
            assertThat(KeyDigest.of(scope, key))
                .as("%s, key %s", scope, value)
                .isEqualTo(result.getBytes(1))
                .hasSize(KeyDigest.BYTES);
          }
        }
      }
    }
    assertThat(KeyDigest.of(Scope.of("ab", "c", "op"), IdempotencyKey.of("k")))
        .as("the lengths keep the values apart")
        .isNotEqualTo(KeyDigest.of(Scope.of("a", "bc", "op"), IdempotencyKey.of("k")));
  }
}
