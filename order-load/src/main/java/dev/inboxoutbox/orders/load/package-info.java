/**
 * The demo's order load: {@link dev.inboxoutbox.orders.load.LoadProducer} sends PlaceOrder commands
 * with client retries, conflicts, malformed records and cancels to the order service, and remembers
 * what it sent; {@code iox produce} ({@link dev.inboxoutbox.orders.load.ProduceCommand}) runs it by
 * hand, {@code iox chaos} under faults.
 */
package dev.inboxoutbox.orders.load;
