package dev.inboxoutbox.provider;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * One route of the simulator; {@link ProviderHttpServer} closes the exchange and answers failures.
 */
@FunctionalInterface
interface Endpoint {
  void handle(HttpExchange exchange) throws IOException;
}
