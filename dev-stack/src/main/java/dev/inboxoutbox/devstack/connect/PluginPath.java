package dev.inboxoutbox.devstack.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** A worker's {@code plugin.path}: plugin archives unpacked as an operator installs them. */
public final class PluginPath {

  private PluginPath() {}

  /**
   * Unpacks {@code archive} into {@code directory}, emptied first so that no jar of an earlier
   * build is left beside the new ones, and answers the directory for {@code plugin.path}.
   */
  public static Path unpacked(Path archive, Path directory) {
    try {
      if (Files.exists(directory)) {
        try (Stream<Path> files = Files.walk(directory)) {
          for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(file);
          }
        }
      }
      Files.createDirectories(directory);
      try (InputStream in = Files.newInputStream(archive);
          ZipInputStream zip = new ZipInputStream(in)) {
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
          Path target = directory.resolve(entry.getName()).normalize();
          if (!target.startsWith(directory)) {
            throw new IOException("entry " + entry.getName() + " lies outside " + directory);
          }
          if (entry.isDirectory()) {
            Files.createDirectories(target);
          } else {
            Files.createDirectories(target.getParent());
            Files.copy(zip, target, StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + archive + " into " + directory, e);
    }
  }
}
