package dev.inboxoutbox.spring.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Holds an endpoint's answer until its transaction has committed: a client must never see a 201 for
 * a change that then rolls back. {@code sendError} is recorded instead of committing the response;
 * {@link #release()} passes the answer on.
 */
final class CapturingResponse extends ContentCachingResponseWrapper {

  private boolean containerError;
  private String errorMessage;

  CapturingResponse(HttpServletResponse response) {
    super(response);
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
