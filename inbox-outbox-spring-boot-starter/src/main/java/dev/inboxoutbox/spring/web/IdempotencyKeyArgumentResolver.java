package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.IdempotencyKey;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/** Hands an {@link IdempotentEndpoint} the key it runs under, already claimed. */
final class IdempotencyKeyArgumentResolver implements HandlerMethodArgumentResolver {

  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return parameter.getParameterType() == IdempotencyKey.class
        && parameter.hasMethodAnnotation(IdempotentEndpoint.class);
  }

  @Override
  public Object resolveArgument(
      MethodParameter parameter,
      ModelAndViewContainer container,
      NativeWebRequest request,
      WebDataBinderFactory binderFactory) {
    Object claim =
        request.getAttribute(
            IdempotentHandlerAdapter.CLAIM_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    if (!(claim instanceof ClaimRequest claimed)) {
      throw new IllegalStateException(
          "no claimed idempotency key: is the IdempotentHandlerAdapter registered?");
    }
    return claimed.key();
  }
}
