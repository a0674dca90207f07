package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProviderHttpServerTest {

  /**
   * A chaos run kills the services that call the provider: writing an answer to one of them fails
   * with "Broken pipe". That is the client's fault and expected; it must not print a stack trace
   * into the run's console.
   */
  @Test
  void aResponseTheClientNoLongerReadsIsOneLogLineNotAStackTrace() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange ->
            ProviderHttpServer.serve(
                exchange,
                ignored -> {
                  throw new IOException("Broken pipe");
                }));
    server.start();
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      status =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/ledger"))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode();
    } finally {
      System.setErr(original);
      server.stop(0);
    }

    assertThat(status).isEqualTo(500);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("GET /v1/ledger")
        .contains("Broken pipe")
        .doesNotContain("\tat ");
  }
}
