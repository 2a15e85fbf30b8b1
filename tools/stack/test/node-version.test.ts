import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The Node.js the project provides itself: the root devDependency `node`, pinned. */
const PROJECT_NODE = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.node;

describe("the project's own Node.js 22", () => {
  it('is pinned to a 22.x release', () => {
    expect(PROJECT_NODE).toMatch(/^22\.\d+\.\d+$/);
  });

  it('runs the tests (vitest workers, and the processes they start with process.execPath)', () => {
    expect(process.version).toBe(`v${PROJECT_NODE}`);
  });

  it('runs the tools/*.sh scripts, whatever node the machine has', () => {
    const version = execFileSync('bash', ['-c', '. tools/lib.sh; node --version'], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin' } });
    expect(version.trim()).toBe(`v${PROJECT_NODE}`);
  });
});
