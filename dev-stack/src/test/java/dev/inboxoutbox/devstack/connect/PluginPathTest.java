package dev.inboxoutbox.devstack.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin directory the tests of a build share: test JVMs side by side unpack the same archive
 * into it at once, and a later build's archive must not find an earlier one's jars beside its own.
 */
class PluginPathTest {

  @Test
  void unpacksSideBySideIntoTheSameDirectoryLeaveOneWholeCopy(@TempDir Path root) throws Exception {
    Path archive = archive(root.resolve("plugin.zip"), 200);
    Path directory = root.resolve("plugins");
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Path>> unpacks = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        unpacks.add(threads.submit((Callable<Path>) () -> PluginPath.unpacked(archive, directory)));
      }
      for (Future<Path> unpack : unpacks) {
        assertThat(unpack.get()).isEqualTo(directory);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(filesIn(directory)).hasSize(200);
    assertThat(Files.readString(directory.resolve("plugin/lib/jar-7.jar"))).isEqualTo("jar 7");
  }

  @Test
  void aNewerArchiveLeavesNothingOfAnEarlierOne(@TempDir Path root) throws Exception {
    Path directory = root.resolve("plugins");
    Path archive = archive(root.resolve("plugin.zip"), 3);
    PluginPath.unpacked(archive, directory);

    archive(archive, 2); // the next build's archive, with one jar fewer
    Files.setLastModifiedTime(archive, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    PluginPath.unpacked(archive, directory);

    assertThat(filesIn(directory)).hasSize(2);
    assertThat(directory.resolve("plugin/lib/jar-2.jar")).doesNotExist();
  }

  private static Path archive(Path zip, int jars) throws IOException {
    try (OutputStream out = Files.newOutputStream(zip);
        ZipOutputStream entries = new ZipOutputStream(out)) {
      for (int i = 0; i < jars; i++) {
        entries.putNextEntry(new ZipEntry("plugin/lib/jar-" + i + ".jar"));
        entries.write(("jar " + i).getBytes(StandardCharsets.UTF_8));
        entries.closeEntry();
      }
    }
    return zip;
  }

  private static List<Path> filesIn(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }
}
