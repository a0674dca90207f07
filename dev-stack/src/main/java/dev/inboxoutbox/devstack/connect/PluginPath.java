package dev.inboxoutbox.devstack.connect;

import dev.inboxoutbox.devstack.ExtractedApplication;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** A worker's {@code plugin.path}: plugin archives unpacked as an operator installs them. */
public final class PluginPath {

  private PluginPath() {}

  /** Threads of one JVM take turns here; the lock file only orders JVMs against each other. */
  private static final Object ONE_THREAD = new Object();

  /**
   * Unpacks {@code archive} into {@code directory}, emptied first so that no jar of an earlier
   * build is left beside the new ones, and answers the directory for {@code plugin.path}. Test JVMs
   * of one build ask for the same directory at once: they take turns, and the ones after the first
   * find this archive unpacked already and leave it as it is (a worker may be loading from it).
   */
  public static Path unpacked(Path archive, Path directory) {
    try {
      Files.createDirectories(directory.getParent());
      String name = directory.getFileName().toString();
      Path stampFile = directory.resolveSibling(name + ".unpacked");
      String stamp = ExtractedApplication.identity(archive);
      synchronized (ONE_THREAD) {
        try (FileChannel lockFile =
                FileChannel.open(
                    directory.resolveSibling(name + ".lock"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock alone = lockFile.lock()) {
          if (Files.isDirectory(directory)
              && Files.exists(stampFile)
              && Files.readString(stampFile).equals(stamp)) {
            return directory;
          }
          Files.deleteIfExists(stampFile);
          unpack(archive, directory);
          Files.writeString(stampFile, stamp);
        }
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + archive + " into " + directory, e);
    }
  }

  private static void unpack(Path archive, Path directory) throws IOException {
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
  }
}
