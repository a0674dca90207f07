package dev.inboxoutbox.spring.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Refuses a request body larger than the limit with 413 before the application reads it, so a few
 * huge concurrent uploads cannot exhaust the heap. A declared {@code Content-Length} over the limit
 * is refused without reading the body; a body without one (chunked) is read up to one byte past the
 * limit and then refused, or handed on from memory.
 */
final class RequestBodyLimitFilter extends OncePerRequestFilter {

  private final long maxBytes;
  private final JsonMapper json;

  RequestBodyLimitFilter(long maxBytes, JsonMapper json) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          "the request body limit must be positive; was " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.json = json;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      refuse(response, declared + " bytes declared");
      return;
    }
    if (declared >= 0 || !hasBody(request)) {
      // The container never hands on more than the declared length.
      chain.doFilter(request, response);
      return;
    }
    byte[] body =
        request.getInputStream().readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
    if (body.length > maxBytes) {
      refuse(response, "more than " + maxBytes + " bytes sent");
      return;
    }
    chain.doFilter(new CachedBodyRequest(request, body), response);
  }

  private static boolean hasBody(HttpServletRequest request) {
    return request.getHeader("Transfer-Encoding") != null;
  }

  private void refuse(HttpServletResponse response, String what) throws IOException {
    // RFC 9457 members, written as a map: ProblemDetail needs a mixin a plain mapper lacks.
    Map<String, Object> problem = new LinkedHashMap<>();
    problem.put("type", "about:blank");
    problem.put("title", "Content Too Large");
    problem.put("status", HttpStatus.CONTENT_TOO_LARGE.value());
    problem.put(
        "detail",
        "request body too large: "
            + what
            + "; the limit is "
            + maxBytes
            + " bytes (inbox-outbox.http.max-request-body)");
    response.setStatus(HttpStatus.CONTENT_TOO_LARGE.value());
    // The rest of the body is not read: the connection cannot be reused.
    response.setHeader("Connection", "close");
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response.getOutputStream().write(json.writeValueAsBytes(problem));
  }
}
