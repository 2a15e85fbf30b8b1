import type { MetricsRegistry } from '@inkwell/grpc';
import { Counter, Histogram } from 'prom-client';
import type { DeliveryObserver } from '../services/delivery.service.js';

/**
 * The delivery metrics on the service's /metrics (docs/api/webhooks.md, "Retries"):
 * `webhook_delivery_attempts_total{outcome}` (succeeded, or the attempt error: http_status,
 * timeout, …), `webhook_deliveries_dropped_total` (private events whose authorization was gone),
 * `webhook_delivery_seconds` (from the event to its successful delivery, retries included) and
 * `webhook_endpoints_disabled_total`.
 */
export function deliveryMetrics(registry: MetricsRegistry): DeliveryObserver {
  const attempts = new Counter({ name: 'webhook_delivery_attempts_total', help: 'Webhook delivery attempts, by outcome (succeeded or the attempt error).', labelNames: ['outcome'], registers: [registry] });
  const dropped = new Counter({ name: 'webhook_deliveries_dropped_total', help: 'Private webhook deliveries dropped because the user no longer granted the app the scope.', registers: [registry] });
  const delivered = new Histogram({
    name: 'webhook_delivery_seconds',
    help: 'Time from an event to its successful webhook delivery, retries included.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400],
    registers: [registry],
  });
  const disabled = new Counter({ name: 'webhook_endpoints_disabled_total', help: 'Webhook endpoints disabled after failing for the whole retry window.', registers: [registry] });
  return {
    attempted: (outcome, eventTime) => {
      attempts.inc({ outcome });
      if (outcome === 'succeeded') delivered.observe(Math.max(0, (Date.now() - eventTime.getTime()) / 1000));
    },
    dropped: () => dropped.inc(),
    disabled: () => disabled.inc(),
  };
}
