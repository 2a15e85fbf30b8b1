-- The backlog cap (docs/api/webhooks.md, "Backlog cap"): an endpoint's pending deliveries, newest
-- first, without reading its log of finished ones.
CREATE INDEX deliveries_pending_endpoint_idx ON deliveries (endpoint_id, id DESC) WHERE status = 'pending';
