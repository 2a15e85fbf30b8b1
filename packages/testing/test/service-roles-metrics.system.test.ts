import { createGrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchemas, ensureDatabase, LOCAL_ROLE_PASSWORD } from '../src/database.js';
import { eventually } from '../src/eventually.js';
import { stackEnv } from '../src/stack-env.js';
import { SERVICES, startSystem, type RunningSystem } from '../src/system.js';
import { createTestUser } from '../src/test-users.js';

let system: RunningSystem;
let databaseUrl: string;

beforeAll(async () => {
  const stack = stackEnv();
  databaseUrl = await ensureDatabase(stack.databaseUrl, 'inkwell_test_roles_metrics');
  await dropSchemas(databaseUrl, SERVICES.map((service) => service.schema));
  system = await startSystem({ stack: { ...stack, databaseUrl }, ports: 'free', seedDemoData: false, metrics: true, env: { LOG_LEVEL: 'error' } });
}, 240_000);

afterAll(async () => {
  await system?.stop();
});

/** Runs `sql` signed in as `role` (the local stack's password) on the system's database. */
async function queryAs(role: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = LOCAL_ROLE_PASSWORD;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** The value of the first sample of `name` with all of `labels` on a metrics page, undefined when absent. */
function sample(page: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = page.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('least privilege in Postgres (docs/api/foundation.md, "Stores and least privilege")', () => {
  it('runs every service as its own runtime role, not as the owner of its schema', async () => {
    const { rows } = await queryAs('inkwell_users', 'SELECT DISTINCT usename AS role, application_name AS app FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1 ORDER BY 1, 2', ['inkwell-%']);
    const byApp = Object.fromEntries(rows.map((row: { app: string; role: string }) => [row.app, row.role]));
    for (const service of SERVICES) expect(byApp[`inkwell-${service.name}`], service.name).toBe(`inkwell_${service.schema}`);
  });

  it("lets a service's role read its own tables and refuses it another service's", async () => {
    const user = await createTestUser(system);
    const own = await queryAs('inkwell_users', 'SELECT name FROM users.users WHERE id = $1', [user.id]);
    expect(own.rows).toEqual([{ name: user.name }]);

    await expect(queryAs('inkwell_users', 'SELECT count(*) FROM stories.stories')).rejects.toMatchObject({ code: '42501', message: 'permission denied for schema stories' });
    await expect(queryAs('inkwell_stories', 'SELECT count(*) FROM users.users')).rejects.toMatchObject({ code: '42501', message: 'permission denied for schema users' });
    await expect(queryAs('inkwell_stories', 'DROP TABLE stories.stories')).rejects.toMatchObject({ code: '42501' });
  });
});

describe('service metrics (docs/api/foundation.md, "Service metrics")', () => {
  it('counts the RPCs a service answered and shows its outbox backlog on /metrics', async () => {
    const url = system.metricsUrls.users ?? '';
    const user = await createTestUser(system);
    const users = createGrpcClient(UsersService, system.addresses.users ?? '', system.keys.clientOptions('gateway'));
    try {
      for (let i = 0; i < 3; i++) await users.getUser({ id: user.id }, { caller: { requestId: `metrics-${i}`, scopes: [] } });
    } finally {
      users.close();
    }

    const page = await (await fetch(url)).text();
    expect(sample(page, 'grpc_server_handled_total', { grpc_service: 'inkwell.users.v1.UsersService', grpc_method: 'GetUser', grpc_code: 'OK' })).toBe(3);
    expect(sample(page, 'grpc_server_handling_seconds_count', { grpc_service: 'inkwell.users.v1.UsersService', grpc_method: 'GetUser' })).toBe(3);
    expect(sample(page, 'grpc_server_handled_total', { grpc_method: 'RegisterUser', grpc_code: 'OK' })).toBeGreaterThanOrEqual(1);
    // Registering published users.user.v1 through the outbox: the relay drains it to zero.
    await eventually(async () => sample(await (await fetch(url)).text(), 'inkwell_outbox_pending_events', { schema: 'users' }) === 0, { intervalMs: 100, what: 'the users outbox to drain' });
    expect(sample(page, 'inkwell_outbox_oldest_pending_age_seconds', { schema: 'users' })).toBeGreaterThanOrEqual(0);
    expect(page).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('serves every service its own endpoint', async () => {
    for (const service of SERVICES) {
      const page = await (await fetch(system.metricsUrls[service.name] ?? '')).text();
      expect(sample(page, 'inkwell_outbox_pending_events', { schema: service.schema }), service.name).toBeGreaterThanOrEqual(0);
    }
  });
});
