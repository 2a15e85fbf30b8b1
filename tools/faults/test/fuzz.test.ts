import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzApi } from '../src/api-fuzzer.js';
import { startFaultEnvironment, type FaultEnvironment } from '../src/fault-environment.js';
import { createActors, type Actor } from '../src/world.js';

// docs/reliability.md "Hostile input": requests generated from the API document (paths, query
// parameters, headers, JSON bodies). FUZZ_SEED repeats a failing run; fast-check prints the seed
// and the shrunk request of any failure.
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);

let env: FaultEnvironment;
let actors: Actor[];

beforeAll(async () => {
  env = await startFaultEnvironment({ name: `fuzz_${process.pid}`, dedicatedOpenSearch: false, dedicatedStores: false });
  actors = await createActors(env.system, 2);
}, 240_000);

afterAll(async () => {
  await env?.stop();
});

describe('hostile input', () => {
  it(`${RUNS} generated requests (seed ${SEED}): none answers 5xx, leaks a stack trace or SQL, or changes anything when rejected`, async () => {
    const knownIds = actors.flatMap((actor) => [actor.id, actor.storyId, actor.chapterId, actor.shelfId]);
    await expect(fuzzApi({ apiUrl: env.system.apiUrl, pool: env.pool, actor: actors[0]!, knownIds, runs: RUNS, seed: SEED })).resolves.toBeUndefined();
  }, 600_000);
});
