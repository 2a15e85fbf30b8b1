import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';

/** Runs a TypeScript entry like the gateway runs in dev and collects its exit code and output. */
function run(entry: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', entry, ...args], {
      cwd: repoRoot(),
      env: { ...process.env, LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const fixture = fileURLToPath(new URL('./fixtures/faulty-plugin.fixture.ts', import.meta.url));
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

describe('gateway startup fails loudly', () => {
  it('when the plugin does not register a policy the pipelines use', async () => {
    const { code, output } = await run(fixture, ['missing-policy']);
    expect(code).toBe(1);
    expect(output).toContain('express-gateway failed to start: POLICY_NOT_FOUND');
    expect(output).not.toContain('started');
  });

  it('when a policy fails while the pipelines are built', async () => {
    const { code, output } = await run(fixture, ['failing-policy']);
    expect(code).toBe(1);
    expect(output).toContain('api-dispatch cannot be set up');
  });

  it('when the environment is invalid, naming every bad variable', async () => {
    const { code, output } = await run(main, [], { GATEWAY_PORT: 'eighty', USERS_SERVICE_ADDR: 'nowhere' });
    expect(code).toBe(1);
    expect(output).toContain('GATEWAY_PORT');
    expect(output).toContain('USERS_SERVICE_ADDR');
  });
});
