package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.Outcome;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An endpoint's answer as the inbox stores it: the status in the outcome's code, and Content-Type,
 * the replayed headers and the exact body octets in a small JSON envelope as the outcome's body, so
 * no column is added and a replay is byte for byte the first answer (a JSON body stored as JSON
 * would come back with its members re-ordered by jsonb).
 *
 * @param containerError the endpoint called {@code sendError}: the container renders the error
 *     page, the first time and on every replay
 */
record StoredResponse(
    int status,
    Optional<String> contentType,
    Map<String, List<String>> headers,
    byte[] body,
    boolean containerError) {

  /** Response header marking a replayed answer (IETF Idempotency-Key draft). */
  static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** Marks an outcome body as this envelope; its value is the envelope's version. */
  private static final String ENVELOPE = "iox-http-response";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reads what an endpoint answered, to store it. */
  static StoredResponse of(CapturingResponse response, List<String> replayedHeaders) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : replayedHeaders) {
      Collection<String> values = response.getHeaders(name);
      if (values != null && !values.isEmpty()) {
        headers.put(name, List.copyOf(values));
      }
    }
    return new StoredResponse(
        response.getStatus(),
        Optional.ofNullable(response.getContentType()),
        headers,
        response.getContentAsByteArray(),
        response.containerError());
  }

  /**
   * An outcome stored by something else on the same scope (a Kafka consumer's handler): its code,
   * or 200 / 409 for a success / rejection without one, and its JSON body.
   */
  private static StoredResponse ofPlainOutcome(Outcome outcome) {
    int status = outcome.code().orElse(outcome.isRejection() ? 409 : 200);
    return new StoredResponse(
        status,
        outcome.body().map(body -> "application/json"),
        Map.of(),
        outcome.body().map(body -> body.getBytes(StandardCharsets.UTF_8)).orElse(new byte[0]),
        false);
  }

  static StoredResponse fromOutcome(Outcome outcome) {
    JsonNode envelope = outcome.body().map(StoredResponse::parse).orElse(null);
    if (envelope == null || !envelope.isObject() || !envelope.has(ENVELOPE)) {
      return ofPlainOutcome(outcome);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    envelope
        .path("headers")
        .properties()
        .forEach(
            header -> {
              List<String> values = new ArrayList<>();
              header.getValue().forEach(value -> values.add(value.asString()));
              headers.put(header.getKey(), values);
            });
    byte[] body =
        envelope.has("base64")
            ? Base64.getDecoder().decode(envelope.get("base64").asString())
            : envelope.path("text").asString("").getBytes(StandardCharsets.UTF_8);
    return new StoredResponse(
        outcome.code().orElse(200),
        Optional.ofNullable(envelope.get("contentType")).map(JsonNode::asString),
        headers,
        body,
        envelope.path("containerError").asBoolean(false));
  }

  /**
   * The outcome to store: a success below 400, a rejection from 400 on.
   *
   * @throws UnstorableResponseException if the envelope exceeds {@link Outcome#MAX_BODY_BYTES}
   */
  Outcome toOutcome() {
    ObjectNode envelope = JSON.createObjectNode();
    envelope.put(ENVELOPE, 1);
    contentType.ifPresent(type -> envelope.put("contentType", type));
    ObjectNode storedHeaders = envelope.putObject("headers");
    headers.forEach((name, values) -> values.forEach(storedHeaders.withArrayProperty(name)::add));
    textOf(body)
        .ifPresentOrElse(
            text -> envelope.put("text", text),
            () -> envelope.put("base64", Base64.getEncoder().encodeToString(body)));
    if (containerError) {
      envelope.put("containerError", true);
    }
    try {
      return status < 400
          ? Outcome.success(status, envelope.toString())
          : Outcome.rejected(status, envelope.toString());
    } catch (IllegalArgumentException tooLarge) {
      throw new UnstorableResponseException(
          "the answer cannot be stored for replays ("
              + tooLarge.getMessage()
              + "); answer with an id and let clients fetch the document",
          tooLarge);
    }
  }

  /** Writes this answer to a repeat of the request, marked as replayed. */
  void replay(HttpServletResponse response) throws IOException {
    headers.forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
    response.setHeader(REPLAYED_HEADER, "true");
    if (containerError) {
      response.sendError(status);
      return;
    }
    response.setStatus(status);
    contentType.ifPresent(response::setContentType);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /**
   * The body as text when it is strict UTF-8 without NUL (which jsonb refuses); otherwise it is
   * stored as base64.
   */
  private static Optional<String> textOf(byte[] body) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(body))
              .toString();
    } catch (CharacterCodingException binary) {
      return Optional.empty();
    }
    return text.indexOf('\0') >= 0 ? Optional.empty() : Optional.of(text);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalStateException("a stored outcome body is not JSON", e);
    }
  }
}
