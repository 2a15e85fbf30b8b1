import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebhookFault, WebhookWatch, webhookFaults } from '../src/webhook-faults.js';
import { useSharedStackWorld } from './shared-stack.js';

// docs/reliability.md: the smoke variant of the webhook steps of `npm run faults`, on a Kafka
// broker of its own: the delivery service killed mid-burst.
const world = useSharedStackWorld('webhooks', 3);
let watch: WebhookWatch;

beforeAll(async () => {
  watch = await WebhookWatch.create(world.env, world.actors);
}, 60_000);

afterAll(async () => {
  await watch?.close();
});

describe('webhook deliveries under faults (smoke)', () => {
  it('the webhooks service killed with SIGKILL mid-burst and restarted: every acknowledged message is delivered', async () => {
    const kill = webhookFaults(8_000)[0]!;
    const report = await runWebhookFault(world.env, watch, world.actors, kill, { ratePerSecond: 10, beforeMs: 2_000, afterMs: 2_000, deliveryTimeoutMs: 90_000 });
    expect(report.acknowledged, JSON.stringify(report)).toBeGreaterThan(20);
    expect({ lost: report.lost, writeErrors: report.writeErrors }, JSON.stringify(report)).toEqual({ lost: 0, writeErrors: 0 });
  }, 180_000);
});
