package dev.inboxoutbox.testing.api.planted.b;

import dev.inboxoutbox.testing.api.planted.a.Order;

/** The other half: b depends on a. */
public final class Payment {
  Order order;
}
