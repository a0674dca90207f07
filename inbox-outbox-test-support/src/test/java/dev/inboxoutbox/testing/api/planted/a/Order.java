package dev.inboxoutbox.testing.api.planted.a;

import dev.inboxoutbox.testing.api.planted.b.Payment;

/** Half of a planted package cycle: a depends on b. */
public final class Order {
  Payment payment;
}
