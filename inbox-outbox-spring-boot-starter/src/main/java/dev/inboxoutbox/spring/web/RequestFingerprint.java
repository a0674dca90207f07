package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Scope;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The claim for an HTTP request ({@link ClaimRequest#ofHttp}): a JSON body (by its content type)
 * hashes in its canonical form, any other body as its octets; when the URL varies within one
 * operation (path variables, a query string) the path and query join the hash.
 */
final class RequestFingerprint {

  private RequestFingerprint() {}

  /**
   * Throws {@link dev.inboxoutbox.inbox.Inbox.InvalidPayloadException} for a JSON body that is not
   * JSON.
   */
  static ClaimRequest claim(
      Scope scope, IdempotencyKey key, HttpServletRequest request, byte[] body) {
    String target =
        targetVaries(request)
            ? request.getRequestURI()
                + (request.getQueryString() == null ? "" : "?" + request.getQueryString())
            : null;
    return ClaimRequest.ofHttp(scope, key, target, body, isJson(request.getContentType()));
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
