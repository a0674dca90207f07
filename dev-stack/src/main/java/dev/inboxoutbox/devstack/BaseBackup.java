package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Makes a node the streaming standby of a primary with PostgreSQL's low-level backup API, which
 * needs only the {@code postgres} binary (the embedded binaries have no {@code pg_basebackup}):
 * {@code pg_backup_start}, a copy of the data directory, {@code pg_backup_stop}'s label, then a
 * {@code standby.signal} and the connection to the primary. The primary keeps a physical slot for
 * the standby from before the copy, so the WAL the standby needs to catch up is never removed.
 * Full-page writes are forced while the backup runs, whatever {@code full_page_writes} says.
 */
final class BaseBackup {

  /** Left out of the copy: the primary's own process files, its WAL and slots. */
  private static final Set<String> NOT_COPIED =
      Set.of("postmaster.pid", "postmaster.opts", "pg_wal", "pg_replslot", "standby.signal");

  private BaseBackup() {}

  /**
   * Replaces {@code standby}'s data directory by a copy of {@code primary}'s, set to follow it
   * through the loopback port {@code replicationPort} (the primary's own, or a proxy's).
   */
  static void copy(PostgresNode primary, PostgresNode standby, int replicationPort) {
    try (Connection connection = primary.connect()) {
      try (PreparedStatement slot =
          connection.prepareStatement(
              """
              SELECT pg_create_physical_replication_slot(?, true)
               WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = ?)""")) {
        slot.setString(1, standby.standbySlot());
        slot.setString(2, standby.standbySlot());
        slot.executeQuery().close();
      }
      try (PreparedStatement start =
          connection.prepareStatement("SELECT pg_backup_start(?, true)")) {
        start.setString(1, "iox standby " + standby.name());
        start.executeQuery().close();
      }
      Path target = standby.dataDirectory();
      deleteRecursively(target);
      copyDirectory(primary.dataDirectory(), target);
      try (PreparedStatement stop =
              connection.prepareStatement("SELECT labelfile FROM pg_backup_stop(false)");
          ResultSet label = stop.executeQuery()) {
        label.next();
        Files.writeString(target.resolve("backup_label"), label.getString(1));
      }
      Files.createDirectories(target.resolve("pg_wal").resolve("archive_status"));
      Files.createDirectories(target.resolve("pg_replslot"));
      Files.writeString(target.resolve("standby.signal"), "");
      // PostgreSQL refuses a data directory others may read.
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
      Files.writeString(
          target.resolve("postgresql.auto.conf"),
          """
          primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s dbname=postgres'
          primary_slot_name = '%s'
          """
              .formatted(replicationPort, standby.name(), standby.standbySlot()),
          StandardOpenOption.APPEND);
    } catch (SQLException | IOException e) {
      throw new DevStackException("cannot copy " + primary + " to standby " + standby, e);
    }
  }

  private static void copyDirectory(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : files.toList()) {
        Path relative = from.relativize(source);
        if (relative.getNameCount() > 0 && NOT_COPIED.contains(relative.getName(0).toString())) {
          continue;
        }
        Path target = to.resolve(relative.toString());
        try {
          if (Files.isDirectory(source)) {
            Files.createDirectories(target);
          } else {
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
          }
        } catch (NoSuchFileException vanished) {
          // A file the server removed while it was copied (a temporary file, a dropped relation):
          // the WAL replayed from the backup's start recreates whatever is still needed.
        }
      }
    }
  }

  static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
