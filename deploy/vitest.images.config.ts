import { defineProject, mergeConfig } from 'vitest/config';
import { sharedProject } from '../vitest.shared.js';

/**
 * `npm run test:images` (tools/images/test.sh): the tests that run the images `npm run images`
 * built. Opt-in: they need a Docker engine and the images, so `npm test` leaves them out.
 */
export default mergeConfig(
  sharedProject,
  defineProject({
    test: { include: ['test/images/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 20 * 60_000, fileParallelism: false },
  }),
);
