-- Orders and the stock they reserve. Every change happens in the transaction that claims the
-- command's idempotency key, so a redelivered command can never reserve twice.
CREATE TABLE orders (
    order_id     text        NOT NULL,
    -- The PlaceOrder key that created it: at most one order per key is the invariant chaos checks.
    placed_by    text        NOT NULL,
    customer_id  text        NOT NULL,
    status       text        NOT NULL,
    total_cents  bigint      NOT NULL,
    currency     text        NOT NULL DEFAULT 'EUR',
    version      integer     NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT orders_pkey PRIMARY KEY (order_id),
    CONSTRAINT orders_status_known CHECK (status IN ('PLACED', 'PAID', 'PAYMENT_FAILED', 'CANCELLED')),
    CONSTRAINT orders_total_not_negative CHECK (total_cents >= 0)
);

CREATE TABLE order_items (
    order_id         text    NOT NULL REFERENCES orders (order_id),
    line             integer NOT NULL,
    sku              text    NOT NULL,
    qty              integer NOT NULL CHECK (qty > 0),
    unit_price_cents bigint  NOT NULL CHECK (unit_price_cents >= 0),
    CONSTRAINT order_items_pkey PRIMARY KEY (order_id, line)
);

-- available + reserved (by open reservations) = initial, for every sku: the chaos verifier checks it.
CREATE TABLE stock (
    sku       text    NOT NULL,
    initial   integer NOT NULL,
    available integer NOT NULL,
    CONSTRAINT stock_pkey PRIMARY KEY (sku),
    CONSTRAINT stock_available_not_negative CHECK (available >= 0)
);

CREATE TABLE stock_reservations (
    order_id text    NOT NULL REFERENCES orders (order_id),
    sku      text    NOT NULL REFERENCES stock (sku),
    qty      integer NOT NULL CHECK (qty > 0),
    CONSTRAINT stock_reservations_pkey PRIMARY KEY (order_id, sku)
);

INSERT INTO stock (sku, initial, available)
SELECT 'SKU-' || lpad(n::text, 2, '0'), 1000000, 1000000 FROM generate_series(1, 10) n;

-- A scarce item, so "out of stock" rejections happen in demos and chaos runs.
INSERT INTO stock (sku, initial, available) VALUES ('SKU-RARE', 50, 50);
