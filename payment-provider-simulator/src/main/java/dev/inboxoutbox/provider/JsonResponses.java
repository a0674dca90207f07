package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/** Writes the simulator's JSON answers, errors as {@code {"error": code, "message": ...}}. */
final class JsonResponses {

  private final ObjectMapper json;

  JsonResponses(ObjectMapper json) {
    this.json = json;
  }

  void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  void send(HttpExchange exchange, int status, ObjectNode body) throws IOException {
    send(exchange, status, json.writeValueAsBytes(body));
  }

  void error(HttpExchange exchange, int status, String code, String message) throws IOException {
    ObjectNode error = json.createObjectNode();
    error.put("error", code);
    error.put("message", message);
    send(exchange, status, error);
  }

  void notFound(HttpExchange exchange) throws IOException {
    error(exchange, 404, "not_found", "no such endpoint");
  }

  void methodNotAllowed(HttpExchange exchange, String allowed) throws IOException {
    exchange.getResponseHeaders().set("Allow", allowed);
    error(exchange, 405, "method_not_allowed", "use " + allowed);
  }

  ObjectNode object() {
    return json.createObjectNode();
  }
}
