-- A CancelOrder may name its order by the PlaceOrder key that placed it (placedBy): one index
-- lookup, not a scan of every order. Not unique: the chaos run's negative control turns the inbox
-- off precisely so that one key can place several orders, and the verifier counts them.
CREATE INDEX orders_placed_by_idx ON orders (placed_by);
