package dev.inboxoutbox.retention;

/** What a cleanup run would remove now. */
public record RetentionPreview(long outcomesToPrune, long keysToDelete, long outboxRowsToDelete) {}
