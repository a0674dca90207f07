package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between clients and one upstream server (PostgreSQL, a Kafka broker) that breaks the
 * network on demand: it delays every chunk it forwards, resets every open connection, or holds
 * every byte (a black hole) until the hole closes again. Clients see what they would see on a real
 * network: slow round trips, {@code Connection reset}, reads and connects that hang. It can also be
 * pointed at another upstream, as a virtual address is moved to a promoted standby.
 *
 * <p>One thread per direction and connection (two while latency is added): the services open tens
 * of connections, not thousands, and blocking sockets make each fault a few lines.
 */
public final class TcpProxy implements AutoCloseable {

  private static final int CHUNK = 16 * 1024;

  private final String name;
  private volatile InetSocketAddress upstream;
  private final ServerSocket server;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "tcp-proxy");
            thread.setDaemon(true);
            return thread;
          });
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Object hole = new Object();
  private volatile long latencyMillis;
  private boolean blackHole; // guarded by hole
  private volatile boolean closed;

  /** Listens on a free port of the loopback interface and forwards to {@code upstream}. */
  public TcpProxy(String name, InetSocketAddress upstream) throws IOException {
    this(name, upstream, 0);
  }

  /** Listens on {@code port} of the loopback interface (0: a free one). */
  public TcpProxy(String name, InetSocketAddress upstream, int port) throws IOException {
    this.name = name;
    this.upstream = upstream;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    threads.submit(this::acceptLoop);
  }

  /** What it stands in front of, for the fault log ("postgres", "kafka-1"). */
  public String name() {
    return name;
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Where it forwards to, {@code host:port}. */
  public String upstreamHostAndPort() {
    return upstream.getHostString() + ":" + upstream.getPort();
  }

  /** Host and port of a JDBC URL such as {@code jdbc:postgresql://localhost:5432/db?x=y}. */
  public static InetSocketAddress jdbcUpstream(String jdbcUrl) {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    int port = uri.getPort() < 0 ? 5432 : uri.getPort();
    return new InetSocketAddress(uri.getHost(), port);
  }

  /** The same JDBC URL with its host and port replaced by this proxy's. */
  public String jdbcUrlThrough(String jdbcUrl) {
    InetSocketAddress named = jdbcUpstream(jdbcUrl);
    String hostAndPort = named.getHostString() + ":";
    int at = jdbcUrl.indexOf("//" + hostAndPort);
    if (at < 0) {
      throw new IllegalArgumentException(
          "cannot route " + jdbcUrl + " through a proxy: it names no host and port");
    }
    int end = jdbcUrl.indexOf('/', at + 2);
    return jdbcUrl.substring(0, at + 2) + hostAndPort() + jdbcUrl.substring(end);
  }

  /** The address clients use instead of the upstream's. */
  public String hostAndPort() {
    return server.getInetAddress().getHostAddress() + ":" + port();
  }

  /**
   * Delays every chunk in each direction by {@code latency} from when it arrived; zero removes the
   * delay.
   */
  public void latency(Duration latency) {
    latencyMillis = latency.toMillis();
  }

  /**
   * Resets every open connection (TCP RST to the client, the upstream side closed) and returns how
   * many there were. New connections go through as before.
   */
  public int resetConnections() {
    int reset = 0;
    for (Link link : links) {
      link.reset();
      reset++;
    }
    return reset;
  }

  /**
   * Holds every byte in both directions, and every new connection before it reaches the upstream,
   * until {@link #closeBlackHole()}. Held bytes are delivered afterwards, as TCP retransmission
   * would deliver them once a route comes back; a client's own timeouts may give up first.
   */
  public void openBlackHole() {
    synchronized (hole) {
      blackHole = true;
    }
  }

  public void closeBlackHole() {
    synchronized (hole) {
      blackHole = false;
      hole.notifyAll();
    }
  }

  /**
   * Forwards new connections to {@code upstream} from now on and resets the open ones, which lead
   * to the old upstream: clients reconnect and reach the new one.
   */
  public void redirect(InetSocketAddress upstream) {
    this.upstream = upstream;
    resetConnections();
  }

  public int openConnections() {
    return links.size();
  }

  private void awaitNoBlackHole() throws InterruptedException {
    synchronized (hole) {
      while (blackHole && !closed) {
        hole.wait(100);
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue; // one failed accept (a client gone before it was taken) must not stop the proxy
      }
      threads.submit(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket target = new Socket();
    try {
      awaitNoBlackHole();
      client.setTcpNoDelay(true);
      target.setTcpNoDelay(true);
      target.connect(this.upstream, 5_000);
    } catch (IOException | InterruptedException e) {
      // The upstream is down (a crash injected elsewhere) or the proxy closes: the client sees its
      // connection closed, as it would if the server were gone.
      closeQuietly(client);
      closeQuietly(target);
      return;
    }
    Link link = new Link(client, target);
    links.add(link);
    threads.submit(new Direction(link, client, target)::pump);
    threads.submit(new Direction(link, target, client)::pump);
  }

  /** A chunk waiting out the added latency; no bytes marks the end of the stream. */
  private record Chunk(long dueNanos, byte[] bytes) {}

  /**
   * One direction of a link. Bytes are forwarded as they arrive. Under added latency each chunk is
   * queued with the time it is due and a writer forwards it then: the delay adds to every round
   * trip without capping the throughput, as a longer route would.
   */
  private final class Direction {
    private final Link link;
    private final Socket from;
    private final Socket to;
    private final BlockingQueue<Chunk> delayed = new LinkedBlockingQueue<>();
    // Chunks queued or being written: while any is, new bytes queue behind them to keep the order.
    private final AtomicInteger pending = new AtomicInteger();
    private boolean writerStarted;

    Direction(Link link, Socket from, Socket to) {
      this.link = link;
      this.from = from;
      this.to = to;
    }

    void pump() {
      byte[] buffer = new byte[CHUNK];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int read;
        while ((read = in.read(buffer)) >= 0) {
          awaitNoBlackHole();
          long delay = latencyMillis;
          if (delay == 0 && pending.get() == 0) {
            out.write(buffer, 0, read);
            out.flush();
          } else {
            queue(System.nanoTime() + delay * 1_000_000, Arrays.copyOf(buffer, read));
          }
        }
        if (pending.get() == 0) {
          endOfStream();
        } else {
          queue(System.nanoTime(), null);
        }
      } catch (IOException | InterruptedException e) {
        // This connection is over (reset, closed by either side, or the proxy closes): end both
        // halves so neither side waits on a link that cannot carry anything any more.
        link.close();
      }
    }

    private void queue(long dueNanos, byte[] bytes) {
      pending.incrementAndGet();
      delayed.add(new Chunk(dueNanos, bytes));
      if (!writerStarted) {
        writerStarted = true;
        threads.submit(this::writeDelayed);
      }
    }

    private void writeDelayed() {
      try {
        OutputStream out = to.getOutputStream();
        while (true) {
          Chunk chunk = delayed.take();
          long wait = chunk.dueNanos() - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          awaitNoBlackHole();
          if (chunk.bytes() == null) {
            endOfStream();
            return;
          }
          out.write(chunk.bytes());
          out.flush();
          pending.decrementAndGet();
        }
      } catch (IOException | InterruptedException e) {
        link.close(); // as in pump: the link cannot carry anything any more
      }
    }

    /** A half-close is passed on, so the other side sees the end of the stream. */
    private void endOfStream() throws IOException {
      to.shutdownOutput();
      link.halfClosed();
    }
  }

  /** One client connection and its upstream connection. */
  private final class Link {
    private final Socket client;
    private final Socket target;
    private final AtomicInteger directionsEnded = new AtomicInteger();

    Link(Socket client, Socket target) {
      this.client = client;
      this.target = target;
    }

    void reset() {
      try {
        // Linger 0 makes close() send RST instead of FIN: the client reads "Connection reset".
        client.setSoLinger(true, 0);
      } catch (SocketException e) {
        // already closed: nothing left to reset
      }
      close();
    }

    /** Both directions ended cleanly: the link is finished. */
    void halfClosed() {
      if (directionsEnded.incrementAndGet() == 2) {
        close();
      }
    }

    void close() {
      links.remove(this);
      closeQuietly(client);
      closeQuietly(target);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a socket that failed is the cleanup itself: there is nothing further to do
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    closeBlackHole();
    server.close();
    links.forEach(Link::close);
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return name + " proxy " + hostAndPort() + " -> " + upstream;
  }
}
