import { defineConfig } from 'vitest/config';

/** The whole suite in one run: every workspace is a vitest project with its own config. */
export default defineConfig({
  test: {
    projects: ['proto', 'packages/*', 'services/*', 'gateway', 'deploy', 'tools/bench', 'tools/seed', 'tools/faults', 'tools/stack'],
  },
});
