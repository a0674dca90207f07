package dev.inboxoutbox.chaos.verify;

import dev.inboxoutbox.provider.ChargeStatus;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.RefundEntry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The money of cancelled orders, held to the provider's ledger: what a cancelled order's payment
 * was charged must all have gone back, and every refund must give back a succeeded charge of a
 * cancelled order, once. The services' own tables are not asked: a refund they believe they made
 * counts only if the provider made it.
 */
final class CancelledMoney {

  private CancelledMoney() {}

  /** {@code "pay-" + orderId}: one payment per order (docs/flows.md). */
  static String paymentOf(String orderId) {
    return "pay-" + orderId;
  }

  static Invariant noCancelledOrderKeepsACapture(
      Set<String> cancelledOrders, List<LedgerEntry> charges, List<RefundEntry> refunds) {
    Map<String, Long> captured = capturedByPayment(charges);
    Map<String, Long> refunded =
        refunds.stream()
            .collect(
                Collectors.groupingBy(
                    RefundEntry::paymentId, Collectors.summingLong(RefundEntry::amountCents)));
    long neverCharged = 0;
    long givenBack = 0;
    long kept = 0;
    for (String orderId : cancelledOrders) {
      String paymentId = paymentOf(orderId);
      long taken = captured.getOrDefault(paymentId, 0L);
      if (taken == 0) {
        neverCharged++;
      } else if (refunded.getOrDefault(paymentId, 0L) >= taken) {
        givenBack++;
      } else {
        kept++;
      }
    }
    return Invariant.of(
        "no cancelled order keeps a capture (provider ledger)",
        cancelledOrders.size(),
        kept,
        kept
            + " cancelled orders keep captured money, "
            + givenBack
            + " were refunded, "
            + neverCharged
            + " were never charged (or their charge failed)");
  }

  static Invariant everyRefundOnceForACapture(
      Set<String> cancelledOrders, List<LedgerEntry> charges, List<RefundEntry> refunds) {
    Set<String> succeededCharges =
        charges.stream()
            .filter(charge -> charge.status() == ChargeStatus.SUCCEEDED)
            .map(LedgerEntry::chargeId)
            .collect(Collectors.toSet());
    Set<String> cancelledPayments =
        cancelledOrders.stream().map(CancelledMoney::paymentOf).collect(Collectors.toSet());
    long twice =
        refunds.stream()
            .collect(Collectors.groupingBy(RefundEntry::paymentId, Collectors.counting()))
            .values()
            .stream()
            .filter(n -> n > 1)
            .count();
    long withoutCapture =
        refunds.stream().filter(refund -> !succeededCharges.contains(refund.chargeId())).count();
    long ofKeptOrders =
        refunds.stream().filter(refund -> !cancelledPayments.contains(refund.paymentId())).count();
    return Invariant.of(
        "no refund twice, none without a capture of a cancelled order (provider ledger)",
        refunds.size(),
        twice + withoutCapture + ofKeptOrders,
        twice
            + " payments refunded more than once, "
            + withoutCapture
            + " refunds without a succeeded charge, "
            + ofKeptOrders
            + " refunds of orders not cancelled, "
            + refunds.size()
            + " refunds");
  }

  private static Map<String, Long> capturedByPayment(List<LedgerEntry> charges) {
    return charges.stream()
        .filter(charge -> charge.status() == ChargeStatus.SUCCEEDED)
        .collect(
            Collectors.groupingBy(
                LedgerEntry::paymentId, Collectors.summingLong(LedgerEntry::amountCents)));
  }
}
