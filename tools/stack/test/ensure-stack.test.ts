import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRefusingEngine } from './refusing-engine.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STACK_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS', 'OPENSEARCH_URL', 'STACK_PATH'];

/** Runs `script` in bash after sourcing tools/lib.sh, the way tools/dev.sh and tools/test.sh do. */
function runWithLib(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -euo pipefail; . tools/lib.sh; ${script}`], { cwd: REPO_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('ensure_stack with a Docker engine that cannot pull images', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inkwell-engine-'));
  const socket = join(dir, 'docker.sock');
  let engine: Awaited<ReturnType<typeof startRefusingEngine>>;

  beforeAll(async () => {
    engine = await startRefusingEngine(socket);
  });
  afterAll(async () => {
    await new Promise((resolve) => engine.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('says so in one line and brings up the local stack instead', async () => {
    // Chosen explicitly: a local stack that already runs would otherwise be reused without asking the engine.
    const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: `unix://${socket}`, INKWELL_STACK: 'testcontainers' };
    for (const name of STACK_VARIABLES) delete env[name];

    const run = await runWithLib('ensure_stack; printf "%s\\n" "$STACK_PATH" "$DATABASE_URL"', env);

    expect(run.status).toBe(0);
    // It gives up on the missing images at once instead of waiting for pulls that cannot succeed.
    expect(engine.requests).not.toContain('POST /images/create');
    const notices = run.stderr.split('\n').filter((line) => line.includes('testcontainers'));
    expect(notices).toEqual([
      expect.stringContaining('Bringing up the stack from testcontainers'),
      expect.stringMatching(/^\[stack\] the Docker engine answers but the testcontainers stack did not start \(testcontainers failed: images? not in the engine: \S.*\); using the local stack$/),
    ]);
    const [stackPath, databaseUrl] = run.stdout.trim().split('\n');
    expect(stackPath).toBe('local');
    expect(databaseUrl).toMatch(/^postgres(ql)?:\/\//);
  }, 600_000);
});
