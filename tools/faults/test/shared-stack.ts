import { afterAll, beforeAll } from 'vitest';
import { startFaultEnvironment, type FaultEnvironment } from '../src/fault-environment.js';
import { createActors, type Actor } from '../src/world.js';

/** A fault environment of one test file and the users acting in it. */
export interface TestWorld {
  readonly env: FaultEnvironment;
  readonly actors: Actor[];
}

/**
 * Starts, before the file's tests, a fault environment on the shared stack (only a Kafka broker
 * of its own, so stopping it disturbs no other test) with `actorCount` actors, and stops it after
 * them. `name` (with the process id) names its databases. Call it at the top level of a test file.
 */
export function useSharedStackWorld(name: string, actorCount: number): TestWorld {
  let world: TestWorld | undefined;
  beforeAll(async () => {
    const env = await startFaultEnvironment({ name: `${name}_${process.pid}`, dedicatedOpenSearch: false, dedicatedStores: false });
    // Set before the actors are created, so the environment is stopped even if that fails.
    world = { env, actors: [] };
    world.actors.push(...(await createActors(env.system, actorCount)));
  }, 240_000);
  afterAll(async () => {
    await world?.env.stop();
  });
  const started = (): TestWorld => {
    if (world === undefined) throw new Error('useSharedStackWorld: the environment starts in beforeAll');
    return world;
  };
  return {
    get env() {
      return started().env;
    },
    get actors() {
      return started().actors;
    },
  };
}
