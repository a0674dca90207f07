package dev.inboxoutbox.orders;

import java.util.Map;
import java.util.Set;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The stock rows a consumer batch locked before its first message, and what is available on each as
 * the batch's own statements leave it. Bound to the batch's Spring transaction: until it ends no
 * other transaction can change these rows, so its orders are checked here instead of locking their
 * rows again, one round trip fewer while every other batch waits.
 *
 * @param asked the skus the batch's orders ask for (a missing one in {@code available} is unknown)
 */
record LockedStock(Set<String> asked, Map<String, Integer> available) {

  /** What {@code owner} bound to the current transaction, or null. */
  static LockedStock ofTransaction(Object owner) {
    return (LockedStock) TransactionSynchronizationManager.getResource(owner);
  }

  /** Binds until the current transaction ends; outside a Spring transaction, nothing is kept. */
  static void bindToTransaction(Object owner, LockedStock locked) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return;
    }
    if (TransactionSynchronizationManager.unbindResourceIfPossible(owner) == null) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
              TransactionSynchronizationManager.unbindResourceIfPossible(owner);
            }
          });
    }
    TransactionSynchronizationManager.bindResource(owner, locked);
  }
}
