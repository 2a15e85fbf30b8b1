import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import { repoRoot, stackEnv } from '@inkwell/testing';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Each run starts node + tsx (seconds on a busy machine), hence the generous timeout.
describe('operator CLI, run as a process', { timeout: 180_000 }, () => {
  let h: UsersHarness;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_cli');
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Runs `npm run cli -- …` the way the root script does, against this file's database. */
  function cli(...args: string[]): Promise<CliRun> {
    const root = repoRoot();
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'services/users/src/cli/main.ts'), ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: h.databaseUrl, REDIS_URL: stackEnv().redisUrl, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('refuses a personal token beyond the per-user cap with the reason and exit code 1', async () => {
    const name = uniqueName('clicap');
    const { user } = await h.client.registerUser({ name, email: `${name}@example.org`, password: 'a long password' }, as(undefined));
    for (let index = 0; index < 50; index++) await h.client.createPersonalToken({ name: `t${index}`, scopes: [] }, as(user!.id));
    const refused = await cli('mint-token', '--user', name, '--scopes', 'read_user');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('Refused: You already have 50 active personal access tokens, the most one user can have. Revoke one you no longer use first.');
  });

  it('creates a user, mints a token for them by name, and revokes it again', async () => {
    const name = uniqueName('cli');
    const created = await cli('create-user', '--name', name, '--email', `${name}@example.org`, '--password', 'a long password', '--json');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const user = JSON.parse(created.stdout) as { id: string; name: string };
    expect(user.name).toBe(name);
    expect((await h.client.authenticate({ login: name, password: 'a long password' }, as(undefined))).user?.id).toBe(user.id);

    const minted = await cli('mint-token', '--user', name, '--scopes', 'read_stories write_stories', '--name', 'deploy script');
    expect(minted.code).toBe(0);
    const token = /iwk_pat_[A-Za-z0-9_-]{43}/.exec(minted.stdout)?.[0];
    expect(token, minted.stdout).toBeDefined();
    expect((await h.client.getAccessToken({ accessToken: token! }, as(undefined))).token).toMatchObject({ userId: user.id, scopes: ['read_stories', 'write_stories'], personal: true });
    const { rows } = await h.pool.query('SELECT 1 FROM access_tokens WHERE token_hash = $1', [hashToken(token!)]);
    expect(rows).toHaveLength(1);

    const revoked = await cli('revoke-token', token!);
    expect(revoked).toMatchObject({ code: 0, stdout: 'Token revoked.\n' });
    await expect(h.client.getAccessToken({ accessToken: token! }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect((await cli('revoke-token', token!)).stdout).toContain('nothing to revoke');
  });

  it('creates confidential and public apps, printing the secret only for confidential ones', async () => {
    const confidential = await cli('create-app', '--name', 'Reader', '--redirect-uri', 'https://reader.example.org/cb', '--redirect-uri', 'http://127.0.0.1:9000/cb');
    expect(confidential.code).toBe(0);
    const clientId = /client_id:\s+(\S+)/.exec(confidential.stdout)?.[1];
    const secret = /client_secret:\s+(iwk_cs_\S+)/.exec(confidential.stdout)?.[1];
    expect(clientId && secret, confidential.stdout).toBeTruthy();
    expect((await h.client.verifyClientSecret({ clientId: clientId!, clientSecret: secret! }, as(undefined))).client).toMatchObject({
      name: 'Reader',
      redirectUris: ['https://reader.example.org/cb', 'http://127.0.0.1:9000/cb'],
    });

    const owner = await cli('create-user', '--name', uniqueName('own'), '--email', `${uniqueName('own')}@example.org`, '--password', 'a long password', '--json');
    const ownerId = (JSON.parse(owner.stdout) as { id: string }).id;
    const publicApp = await cli('create-app', '--name', 'SPA', '--redirect-uri', 'https://spa.example.org/cb', '--public', '--owner', ownerId, '--json');
    expect(publicApp.code).toBe(0);
    const app = JSON.parse(publicApp.stdout) as { clientId: string; clientSecret?: string; confidential: boolean };
    expect(app.confidential).toBe(false);
    expect(app.clientSecret).toBeUndefined();
    expect((await h.client.getClient({ clientId: app.clientId }, as(undefined))).client?.ownerUserId).toBe(ownerId);
  });

  it('revokes every token of a user', async () => {
    const name = uniqueName('rv');
    await cli('create-user', '--name', name, '--email', `${name}@example.org`, '--password', 'a long password');
    const tokens = [];
    for (const scopes of ['read_user', 'write_pms']) tokens.push(JSON.parse((await cli('mint-token', '--user', name, '--scopes', scopes, '--json')).stdout) as { token: string });
    const revoked = await cli('revoke-tokens', '--user', name);
    expect(revoked).toMatchObject({ code: 0 });
    expect(revoked.stdout).toMatch(/^Revoked 2 active tokens of /);
    for (const { token } of tokens) await expect(h.client.getAccessToken({ accessToken: token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('exits 2 with a clear message on usage errors, and 1 when the service refuses', async () => {
    const [unknownCommand, missing, unknownOption, unknownScope, ghost, invalid, badUri] = await Promise.all([
      cli('frobnicate'),
      cli('create-user', '--name', 'x'),
      cli('create-app', '--name', 'x', '--colour', 'red'),
      cli('mint-token', '--user', 'nobody', '--scopes', 'read_user sudo'),
      cli('mint-token', '--user', uniqueName('ghost'), '--scopes', 'read_user'),
      cli('create-user', '--name', 'bad name', '--email', 'nope', '--password', 'short'),
      cli('create-app', '--name', 'x', '--redirect-uri', 'http://evil.example.org/cb'),
    ]);
    expect(unknownCommand).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command "frobnicate"') });
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('--email: is required') });
    expect(unknownOption).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--colour'") });
    expect(unknownScope).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown scope sudo') });
    expect(ghost).toMatchObject({ code: 1, stderr: expect.stringContaining('The user does not exist.') });
    expect(invalid).toMatchObject({ code: 1, stderr: expect.stringMatching(/--name: .*\n.*--email: .*\n.*--password: /) });
    expect(badUri).toMatchObject({ code: 1, stderr: expect.stringContaining('loopback') });
    const help = await cli('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('mint-token --user');
  });
});
