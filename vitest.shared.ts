import { defineProject } from 'vitest/config';

/**
 * Vitest settings every workspace shares: resolve workspace packages to their TypeScript source
 * (the `@inkwell/source` export condition) so tests never run stale builds.
 */
export const sharedProject = defineProject({
  resolve: { conditions: ['@inkwell/source', 'module', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@inkwell/source', 'module', 'node', 'default'], externalConditions: ['@inkwell/source'] } },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
