import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, LOCAL_ROLE_PASSWORD, provisionServiceRoles } from '../src/database.js';
import { repoRoot, stackEnv } from '../src/stack-env.js';
import { SERVICES } from '../src/system.js';

const SCRIPT = join(repoRoot(), 'deploy/k8s/components/dev-stores/postgres-roles.psql');
const stack = stackEnv();
let scripted: string;
let provisioned: string;

/** Drops and recreates the service schemas of `url`'s database, so each run starts from nothing. */
async function freshSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const service of SERVICES) await client.query(`DROP SCHEMA IF EXISTS "${service.schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Owner, privileges, default privileges and extensions of every service schema, and who may connect. */
async function privileges(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schemas = SERVICES.map((service) => service.schema);
    const { rows: owners } = await client.query('SELECT nspname AS schema, nspowner::regrole::text AS owner, nspacl::text[] AS acl FROM pg_namespace WHERE nspname = ANY($1) ORDER BY 1', [schemas]);
    const { rows: defaults } = await client.query(
      'SELECT defaclrole::regrole::text AS role, defaclnamespace::regnamespace::text AS schema, defaclobjtype AS type, defaclacl::text[] AS acl FROM pg_default_acl WHERE defaclnamespace::regnamespace::text = ANY($1) ORDER BY 2, 3',
      [schemas],
    );
    const { rows: extensions } = await client.query('SELECT extname AS name, extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extnamespace::regnamespace::text = ANY($1) ORDER BY 1', [schemas]);
    const roles = SERVICES.flatMap((service) => [`inkwell_${service.schema}`, `inkwell_${service.schema}_migrator`]);
    const { rows: connect } = await client.query("SELECT r AS role, has_database_privilege(r, current_database(), 'CONNECT') AS connect FROM unnest($1::text[]) r ORDER BY 1", [roles]);
    return { owners, defaults, extensions, connect };
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  scripted = await ensureDatabase(stack.databaseUrl, 'inkwell_test_roles_script');
  provisioned = await ensureDatabase(stack.databaseUrl, 'inkwell_test_roles_provisioned');
  await freshSchemas(scripted);
  await freshSchemas(provisioned);
  const passwords = SERVICES.flatMap((service) => ['-v', `${service.schema}_password=${LOCAL_ROLE_PASSWORD}`, '-v', `${service.schema}_migrator_password=${LOCAL_ROLE_PASSWORD}`]);
  await promisify(execFile)('psql', ['--no-psqlrc', '--quiet', '-v', 'ON_ERROR_STOP=1', ...passwords, '-d', scripted, '-f', SCRIPT]);
  await provisionServiceRoles(provisioned, SERVICES);
}, 60_000);

afterAll(async () => {
  await freshSchemas(scripted);
  await freshSchemas(provisioned);
});

describe('deploy/k8s/components/dev-stores/postgres-roles.psql', () => {
  it('gives every service schema the same roles, owner, grants, default privileges and extensions as provisionSchemaRoles', async () => {
    const fromScript = await privileges(scripted);
    expect(fromScript).toEqual(await privileges(provisioned));
    expect((fromScript as { owners: unknown[] }).owners).toHaveLength(SERVICES.length);
  });
});
