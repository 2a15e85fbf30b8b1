import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultEnvironment, type FaultEnvironment } from '../src/fault-environment.js';
import { runFault } from '../src/fault-run.js';
import { kafkaStop, serviceKill } from '../src/faults.js';
import { MixedLoad } from '../src/mixed-load.js';
import { createActors, type Actor } from '../src/world.js';

// docs/reliability.md: the smoke variant of `npm run faults`, under light load, on a Kafka broker
// of its own (stopping it disturbs no other test).
let env: FaultEnvironment;
let actors: Actor[];

beforeAll(async () => {
  env = await startFaultEnvironment({ name: `smoke_${process.pid}`, dedicatedOpenSearch: false, dedicatedStores: false });
  actors = await createActors(env.system, 4);
}, 240_000);

afterAll(async () => {
  await env?.stop();
});

const OPTIONS = { requestsBefore: 40, requestsAfter: 40, recoveryTimeoutMs: 60_000, checkSearchIndex: true };

describe('faults under light load (smoke)', () => {
  it('the stories service killed with SIGKILL and restarted: no event lost or applied twice, counts equal a recount, no 500', async () => {
    const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency: 2, seed: 7 });
    const report = await runFault(env, load, actors[0]!, serviceKill('stories'), OPTIONS);
    expect(report.requests).toBeGreaterThan(80);
    expect(report.convergeSeconds, JSON.stringify(report)).toBeDefined();
    expect({ lost: report.eventsLost, doubled: report.eventsDoubled, disagreeing: report.disagreeing, serverErrors: report.serverErrors, failed: report.failedBeyondInFlight }, JSON.stringify(report)).toEqual({
      lost: 0,
      doubled: 0,
      disagreeing: 0,
      serverErrors: 0,
      failed: 0,
    });
  }, 180_000);

  it('the Kafka broker stopped and started: every event of the outage arrives once, counts equal a recount, the API keeps answering', async () => {
    const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency: 2, seed: 11 });
    const report = await runFault(env, load, actors[1]!, kafkaStop(8_000), OPTIONS);
    expect(report.convergeSeconds, JSON.stringify(report)).toBeDefined();
    expect({ lost: report.eventsLost, doubled: report.eventsDoubled, disagreeing: report.disagreeing, serverErrors: report.serverErrors, failed: report.failedBeyondInFlight }, JSON.stringify(report)).toEqual({
      lost: 0,
      doubled: 0,
      disagreeing: 0,
      serverErrors: 0,
      failed: 0,
    });
  }, 180_000);
});
