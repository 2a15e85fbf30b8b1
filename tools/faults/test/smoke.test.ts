import { describe, expect, it } from 'vitest';
import { runFault, type FaultReport } from '../src/fault-run.js';
import { gatewayTerm, kafkaStop, serviceKill } from '../src/faults.js';
import { MixedLoad } from '../src/mixed-load.js';
import { useSharedStackWorld } from './shared-stack.js';

// docs/reliability.md: the smoke variant of `npm run faults`, under light load, on a Kafka broker
// of its own (stopping it disturbs no other test).
const world = useSharedStackWorld('smoke', 4);

/** The run converged, and nothing was lost, doubled, left disagreeing with a recount, or answered 500 / failed beyond what was in flight. */
function expectConvergedIntact(report: FaultReport): void {
  expect(report.convergeSeconds, JSON.stringify(report)).toBeDefined();
  expect({ lost: report.eventsLost, doubled: report.eventsDoubled, disagreeing: report.disagreeing, serverErrors: report.serverErrors, failed: report.failedBeyondInFlight }, JSON.stringify(report)).toEqual({
    lost: 0,
    doubled: 0,
    disagreeing: 0,
    serverErrors: 0,
    failed: 0,
  });
}

const OPTIONS = { requestsBefore: 40, requestsAfter: 40, recoveryTimeoutMs: 60_000, checkSearchIndex: true };

describe('faults under light load (smoke)', () => {
  it('the stories service killed with SIGKILL and restarted: no event lost or applied twice, counts equal a recount, no 500', async () => {
    const load = new MixedLoad({ apiUrl: world.env.system.apiUrl, actors: world.actors, concurrency: 2, seed: 7 });
    const report = await runFault(world.env, load, world.actors[0]!, serviceKill('stories'), OPTIONS);
    expect(report.requests).toBeGreaterThan(80);
    expectConvergedIntact(report);
  }, 180_000);

  it('the gateway drained by SIGTERM behind a sender that honours /readyz (as a load balancer): every request answered', async () => {
    const load = new MixedLoad({ apiUrl: world.env.system.apiUrl, actors: world.actors, concurrency: 2, seed: 13 });
    const report = await runFault(world.env, load, world.actors[2]!, gatewayTerm({ behindReadinessProbe: true }), OPTIONS);
    expect(report.refusedWhileGatewayDown, JSON.stringify(report)).toBe(0);
    expectConvergedIntact(report);
  }, 180_000);

  it('the Kafka broker stopped and started: every event of the outage arrives once, counts equal a recount, the API keeps answering', async () => {
    const load = new MixedLoad({ apiUrl: world.env.system.apiUrl, actors: world.actors, concurrency: 2, seed: 11 });
    const report = await runFault(world.env, load, world.actors[1]!, kafkaStop(8_000), OPTIONS);
    expectConvergedIntact(report);
  }, 180_000);
});
