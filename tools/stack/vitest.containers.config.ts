import { defineProject, mergeConfig } from 'vitest/config';
import { sharedProject } from '../../vitest.shared.js';

/**
 * The smoke run of the whole system as containers (`npm run containers -- smoke`, part of
 * `npm run test:images`): opt-in, never in `npm test`, whose projects only take *.test.ts.
 */
export default mergeConfig(sharedProject, defineProject({ test: { include: ['test/**/*.smoke.ts'], testTimeout: 600_000, hookTimeout: 900_000 } }));
