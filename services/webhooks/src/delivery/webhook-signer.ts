import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers of one delivery attempt (docs/api/webhooks.md, "Signatures"):
 * `webhook-id` (the event id), `webhook-timestamp` (seconds) and `webhook-signature`, one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret, space-separated (the current secret
 * first, then the previous one during a rotation's grace period).
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, timestamp: Date, body: string): Record<string, string> {
  if (secrets.length === 0) throw new Error('a delivery needs at least one secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
