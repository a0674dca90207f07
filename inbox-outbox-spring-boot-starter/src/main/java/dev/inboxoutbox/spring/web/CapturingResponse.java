package dev.inboxoutbox.spring.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Holds an endpoint's answer until its transaction has committed: a client must never see a 201 for
 * a change that then rolls back. {@code sendError} is recorded instead of committing the response;
 * {@link #release()} passes the answer on. The body is held here, but status and headers reach the
 * servlet container's response as the endpoint sets them, so {@link #withdraw()} puts back the ones
 * that response had before the endpoint ran: an endpoint that fails, or whose commit does, must not
 * leave a {@code Location} of a row that was rolled back on the error answer.
 */
final class CapturingResponse extends ContentCachingResponseWrapper {

  private final int statusBefore;
  private final String contentTypeBefore;
  private final Map<String, List<String>> headersBefore = new LinkedHashMap<>();
  private boolean containerError;
  private String errorMessage;

  CapturingResponse(HttpServletResponse response) {
    super(response);
    statusBefore = response.getStatus();
    contentTypeBefore = response.getContentType();
    for (String name : response.getHeaderNames()) {
      headersBefore.putIfAbsent(name, List.copyOf(response.getHeaders(name)));
    }
  }

  @Override
  public void sendError(int status) {
    sendError(status, null);
  }

  @Override
  public void sendError(int status, String message) {
    resetBuffer();
    setStatus(status);
    containerError = true;
    errorMessage = message;
  }

  boolean containerError() {
    return containerError;
  }

  /**
   * Drops the held answer and gives the container's response back the status and headers it had
   * before the endpoint ran, for the error handling that answers instead. Filters' headers stay.
   */
  void withdraw() {
    HttpServletResponse response = (HttpServletResponse) getResponse();
    if (response.isCommitted()) {
      return;
    }
    response.reset();
    response.setStatus(statusBefore);
    if (contentTypeBefore != null) {
      response.setContentType(contentTypeBefore);
    }
    headersBefore.forEach(
        (name, values) -> values.forEach(value -> response.addHeader(name, value)));
  }

  /** Sends the held answer to the client. */
  void release() throws IOException {
    if (containerError) {
      HttpServletResponse response = (HttpServletResponse) getResponse();
      if (errorMessage == null) {
        response.sendError(getStatus());
      } else {
        response.sendError(getStatus(), errorMessage);
      }
    } else {
      copyBodyToResponse();
    }
  }
}
