import { KeyRing, type RunningSystem } from '@inkwell/testing';
import pg from 'pg';
import type { DedicatedServer } from '../../../faults/src/dedicated-servers.js';
import type { FaultEnvironment } from '../../../faults/src/fault-environment.js';
import { containerControl, down, type SystemState } from './container-system.js';

/** A store container as the fault runner's dedicated servers look: stopped, killed and started by docker. */
function storeServer(kind: string, address: string, system: SystemState): DedicatedServer {
  const control = containerControl(kind, system);
  return {
    kind,
    address,
    pid: () => undefined,
    start: control.start,
    stop: () => control.stop(),
    crash: () => control.kill('SIGKILL'),
    // Its data goes with the system (`down`).
    destroy: async () => {},
  };
}

/**
 * The running container system as tools/faults' runs see a system (its faults, mixed load and
 * audits work unchanged): the API and the users service on their published loopback ports, the
 * internal-call keys the processes got, a pool on the Postgres container as its superuser, and the
 * containers to kill and start. `stop` ends the pool and removes the system.
 */
export async function containerFaultEnvironment(system: SystemState): Promise<FaultEnvironment> {
  const keys = await KeyRing.load(system.keysDir);
  const pool = new pg.Pool({ connectionString: system.databaseUrl, max: 2 });
  // A killed Postgres container ends idle connections; the pool must not crash the run for that.
  pool.on('error', () => {});
  const running: RunningSystem = {
    apiUrl: `${system.gatewayUrl}/api/v1`,
    gatewayUrl: system.gatewayUrl,
    // Not published: only the API and the users service's gRPC are.
    gatewayMetricsUrl: '',
    processes: [],
    addresses: { users: system.usersAddress },
    metricsUrls: {},
    // The overlay's configuration: no prefixes (the stores are the system's own).
    redisKeyPrefix: '',
    kafkaNamespace: '',
    opensearchIndexPrefix: '',
    keys,
    stop: down,
  };
  return {
    system: running,
    pool,
    kafka: storeServer('kafka', 'kafka-0.kafka:9092', system),
    opensearch: storeServer('opensearch', system.opensearchUrl, system),
    postgres: storeServer('postgres', system.databaseUrl, system),
    redis: storeServer('redis', 'redis://redis:6379', system),
    opensearchUrl: system.opensearchUrl,
    redisUrl: 'redis://redis:6379',
    process: (name) => containerControl(name, system),
    async stop() {
      await pool.end();
      await down();
    },
  };
}
