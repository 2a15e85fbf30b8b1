import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeyRing } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';
import { DEPLOYED_PROCESSES, REPO_ROOT } from '../../../deploy/test/process.catalog.js';
import { LOCAL_STORE_IMAGES } from '../src/local-images.js';
import { systemSpec, type ContainerSpec } from '../src/containers/system-spec.js';

// The container system (`npm run containers`) runs what the dev overlay deploys, configured as it
// configures it: checked on the rendered overlay, without an engine.

const keys = KeyRing.generate();
const specs = systemSpec({ keys, publicBaseUrl: 'http://127.0.0.1:18080' });
const byName = (name: string) => specs.find((spec) => spec.name === name) as ContainerSpec;

/** `KEY=value` lines of a file (comments and blank lines left out). */
function envFile(path: string): Record<string, string> {
  const lines = readFileSync(join(REPO_ROOT, path), 'utf8').split('\n');
  return Object.fromEntries(lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('the container system, from kubectl kustomize deploy/k8s/overlays/dev', () => {
  it('runs every process of the deployment and the four stores, the stores on the images built here', () => {
    expect(specs.map((spec) => spec.name).sort()).toEqual([...DEPLOYED_PROCESSES.map((process) => process.name), 'kafka', 'opensearch', 'postgres', 'redis'].sort());
    for (const store of ['postgres', 'redis', 'kafka', 'opensearch'] as const) expect(byName(store).image).toBe(LOCAL_STORE_IMAGES[store]);
    for (const process of DEPLOYED_PROCESSES) expect(byName(process.name).image).toBe(`inkwell/${process.name}:dev`);
  });

  it("gives each process its base config.env, the overlay's values and the dev stores' Secret", () => {
    for (const process of DEPLOYED_PROCESSES) {
      const { env } = byName(process.name);
      const base = envFile(`deploy/k8s/base/${process.name}/config.env`);
      for (const [key, value] of Object.entries(base)) {
        if (key === 'PUBLIC_BASE_URL' || key === 'DATABASE_POOL_SIZE' || key === 'SEED_DEMO_DATA' || key === 'LOG_LEVEL') continue;
        expect(env[key], `${process.name} ${key}`).toBe(value);
      }
    }
    expect(byName('users').env).toMatchObject({ SEED_DEMO_DATA: 'true', DATABASE_POOL_SIZE: '5', DATABASE_URL: 'postgres://inkwell_users:inkwell-dev-only@postgres:5432/inkwell' });
    expect(byName('stories').env).toMatchObject({ OPENSEARCH_URL: 'http://opensearch:9200', KAFKA_BROKERS: 'kafka-0.kafka:9092' });
    expect(byName('gateway').env).toMatchObject({ LOG_LEVEL: 'debug', REDIS_URL: 'redis://redis:6379', PUBLIC_BASE_URL: 'http://127.0.0.1:18080' });
  });

  it("signs internal calls with the key ring's keys, each process its own", () => {
    for (const process of DEPLOYED_PROCESSES) {
      const own = keys.env(process.name);
      expect(byName(process.name).env).toMatchObject({ INTERNAL_AUTH_PRIVATE_KEY: own.INTERNAL_AUTH_PRIVATE_KEY, INTERNAL_AUTH_KEY_ID: own.INTERNAL_AUTH_KEY_ID, INTERNAL_AUTH_TRUSTED_KEYS: own.INTERNAL_AUTH_TRUSTED_KEYS });
    }
  });

  it('runs each container as its pod: uid, read-only root, tmpfs for emptyDirs, volumes for claims, the Postgres init scripts', () => {
    expect(byName('gateway')).toMatchObject({ user: '1000:1000', readOnlyRoot: true, tmpfs: ['/tmp'], aliases: ['gateway'] });
    expect(byName('kafka')).toMatchObject({ aliases: ['kafka', 'kafka-0.kafka'], volumes: { '/var/lib/kafka/data': 'inkwell-system-kafka-data' } });
    expect(byName('kafka').env.KAFKA_ADVERTISED_LISTENERS).toBe('PLAINTEXT://kafka-0.kafka:9092');
    const postgres = byName('postgres');
    expect(postgres).toMatchObject({ user: '999:999', readOnlyRoot: true });
    expect(postgres.configFiles['/docker-entrypoint-initdb.d']?.map((file) => file.path).sort()).toEqual(['10-inkwell-roles.sh', 'postgres-roles.psql']);
    expect(postgres.configFiles['/docker-entrypoint-initdb.d']?.find((file) => file.path === 'postgres-roles.psql')?.content).toBe(
      readFileSync(join(REPO_ROOT, 'deploy/k8s/components/dev-stores/postgres-roles.psql'), 'utf8'),
    );
  });

  it('publishes only the gateway, the users gRPC, Postgres and OpenSearch (on loopback, for the tests)', () => {
    expect(Object.fromEntries(specs.filter((spec) => spec.published.length > 0).map((spec) => [spec.name, spec.published]))).toEqual({ gateway: [8080], users: [50051], postgres: [5432], opensearch: [9200] });
  });
});
