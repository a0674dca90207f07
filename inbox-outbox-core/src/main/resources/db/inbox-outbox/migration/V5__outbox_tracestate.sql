-- The W3C tracestate beside the traceparent: vendors' entries a tracer upstream put on the trace
-- (sampling decisions, tenant routing) survive the outbox as the relay's "tracestate" header.
-- Nullable and without a default: adding it rewrites no row and takes the table's lock only for
-- the catalogue change. The publication covers the table, so the column reaches the relay too.
ALTER TABLE outbox ADD COLUMN tracestate text;

COMMENT ON COLUMN outbox.tracestate IS
    'W3C tracestate that goes with traceparent; the relay sends it as the "tracestate" header.';
