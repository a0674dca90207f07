package dev.inboxoutbox.chaos.report;

/**
 * One sample of a run's progress, taken once a second; a count the run could not read (the orders
 * database was down or unreachable) is null.
 *
 * @param atMillis milliseconds since the load started
 * @param sent records the load producer has sent
 * @param orders orders placed (rows in the orders table), or null
 * @param settled orders paid or whose payment failed, or null
 * @param duplicatesAbsorbed duplicate claims the inboxes absorbed, over every instance's lives
 * @param kills kills and crash points so far
 */
public record TimelinePoint(
    long atMillis, long sent, Long orders, Long settled, long duplicatesAbsorbed, int kills) {}
