import { describe, expect, it } from 'vitest';
import { fuzzApi } from '../src/api-fuzzer.js';
import { useSharedStackWorld } from './shared-stack.js';

// docs/reliability.md "Hostile input": requests generated from the API document (paths, query
// parameters, headers, JSON bodies). FUZZ_SEED repeats a failing run; fast-check prints the seed
// and the shrunk request of any failure.
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);

const world = useSharedStackWorld('fuzz', 2);

describe('hostile input', () => {
  it(`${RUNS} generated requests (seed ${SEED}): none answers 5xx, leaks a stack trace or SQL, or changes anything when rejected`, async () => {
    const knownIds = world.actors.flatMap((actor) => [actor.id, actor.storyId, actor.chapterId, actor.shelfId]);
    await expect(fuzzApi({ apiUrl: world.env.system.apiUrl, pool: world.env.pool, actor: world.actors[0]!, knownIds, runs: RUNS, seed: SEED })).resolves.toBeUndefined();
  }, 600_000);
});
