package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.RequestHash;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The request hash stored with a key. A JSON body hashes in its canonical form, the same hash a
 * Kafka consumer computes for the same payload, so an endpoint and a topic can share a scope; any
 * other body hashes as its octets. When the URL varies within one operation (path variables, a
 * query string) the path and query join the hash: {@code /orders/o-1/cancel} and {@code
 * /orders/o-2/cancel} under one key are then a reused key, not a replay of each other.
 */
final class RequestFingerprint {

  private RequestFingerprint() {}

  /**
   * Throws {@link dev.inboxoutbox.inbox.InvalidPayloadException} for a JSON body that is not JSON.
   */
  static RequestHash of(HttpServletRequest request, byte[] body) {
    RequestHash bodyHash =
        body.length > 0 && isJson(request.getContentType())
            ? RequestHash.ofJsonTree(RequestHash.parseJson(body))
            : RequestHash.ofBytes(body);
    if (!targetVaries(request)) {
      return bodyHash;
    }
    String target =
        request.getRequestURI()
            + (request.getQueryString() == null ? "" : "?" + request.getQueryString());
    return RequestHash.ofBytes((target + "\n" + bodyHash.hex()).getBytes(StandardCharsets.UTF_8));
  }

  private static boolean targetVaries(HttpServletRequest request) {
    Object variables = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    return request.getQueryString() != null
        || (variables instanceof Map<?, ?> map && !map.isEmpty());
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    MediaType type;
    try {
      type = MediaType.parseMediaType(contentType);
    } catch (InvalidMediaTypeException unreadable) {
      // Hashed as octets; Spring MVC refuses the body when the endpoint reads it, and rolls back.
      return false;
    }
    return MediaType.APPLICATION_JSON.isCompatibleWith(type)
        || "json".equals(type.getSubtypeSuffix());
  }
}
