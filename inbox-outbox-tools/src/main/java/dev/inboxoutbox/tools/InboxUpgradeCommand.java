package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.OperatorError;
import java.sql.SQLException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "inbox-upgrade",
    mixinStandardHelpOptions = true,
    description =
        "Move a filled inbox from schema v1 to v2 (the key digest as primary key) while consumers"
            + " of both versions run: prepare, roll out, then finish.")
public final class InboxUpgradeCommand {

  @Command(
      name = "prepare",
      mixinStandardHelpOptions = true,
      description =
          "Apply the schema migrations, fill the key digest of stored keys in short transactions"
              + " and build its unique index concurrently. Online and repeatable; instances of"
              + " this version claim once it has finished.")
  int prepare(@Mixin DatabaseOptions db) {
    return run(db, upgrade -> upgrade.prepare());
  }

  @Command(
      name = "finish",
      mixinStandardHelpOptions = true,
      description =
          "Once no instance of the previous version runs: move the primary key to the digest"
              + " (one brief lock) and keep outcome index entries for rows with a body only."
              + " Instances of the previous version would then fail, not claim.")
  int finish(@Mixin DatabaseOptions db) {
    return run(db, InboxUpgrade::finish);
  }

  private interface Step {
    void on(InboxUpgrade upgrade) throws SQLException;
  }

  private static int run(DatabaseOptions db, Step step) {
    try {
      step.on(new InboxUpgrade(db.dataSource(), System.out));
    } catch (SQLException e) {
      throw unreachable(db, e);
    } catch (OperatorError e) {
      throw e;
    } catch (RuntimeException e) {
      // The migrations wrap what the database said; a failure without a database cause is a bug.
      SQLException cause = sqlCause(e);
      if (cause == null) {
        throw e;
      }
      throw unreachable(db, cause);
    }
    return 0;
  }

  private static OperatorError unreachable(DatabaseOptions db, SQLException e) {
    return new OperatorError(
        "upgrading the inbox at " + db.describe() + " failed: " + e.getMessage(), e);
  }

  private static SQLException sqlCause(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}
