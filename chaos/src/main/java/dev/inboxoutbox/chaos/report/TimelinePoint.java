package dev.inboxoutbox.chaos.report;

/**
 * One sample of a run's progress, taken once a second; a count the run could not read (the database
 * was down) is -1.
 *
 * @param atMillis milliseconds since the load started
 * @param sent records the load producer has sent
 * @param orders orders placed (rows in the orders table)
 * @param settled orders paid or whose payment failed
 * @param duplicatesAbsorbed duplicate claims the inboxes absorbed, over every instance's lives
 * @param kills kills and crash points so far
 */
public record TimelinePoint(
    long atMillis, long sent, Long orders, Long settled, long duplicatesAbsorbed, int kills) {}
