package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for processes started later (brokers, a standby, services and Kafka Connect workers, which
 * are restarted on the same port after a kill) to listen on. A port the kernel hands out for {@code
 * bind(0)} comes from the ephemeral range, the same range outgoing connections draw from, and one
 * of them could take it before the process binds ("Address already in use" at a broker's start-up).
 * These are picked below that range instead, and checked to be free.
 */
public final class FreePorts {

  private static final int LOWEST = 10_000;
  private static final int ATTEMPTS = 200;

  private FreePorts() {}

  /** A port free now, below the kernel's ephemeral range where it can tell. */
  public static int belowEphemeralRange() throws IOException {
    int ceiling = ephemeralRangeStart();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, ceiling);
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** The first port of Linux's ephemeral range; 32768 where it cannot be read. */
  static int ephemeralRangeStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int start = Integer.parseInt(range.split("\\s+")[0]);
      return start > LOWEST + 1000 ? start : 32_768;
    } catch (IOException | RuntimeException unknown) {
      return 32_768;
    }
  }
}
