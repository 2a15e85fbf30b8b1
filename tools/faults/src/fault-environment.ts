import { dropSchemas, ensureDatabase, SERVICES, stackEnv, startSystem, type RunningProcess, type RunningSystem } from '@inkwell/testing';
import pg from 'pg';
import { startDedicatedKafka, startDedicatedOpenSearch, type DedicatedServer } from './dedicated-servers.js';

/** A system for fault runs: its own database, its own Kafka broker, maybe its own OpenSearch node. */
export interface FaultEnvironment {
  readonly system: RunningSystem;
  /** A pool on the system's database (every service's schema) for audits. */
  readonly pool: pg.Pool;
  readonly kafka: DedicatedServer;
  /** The dedicated node when one was asked for (faults that stop OpenSearch need it). */
  readonly opensearch: DedicatedServer | undefined;
  readonly opensearchUrl: string;
  readonly redisUrl: string;
  /** The running process of a service or the gateway. */
  process(name: string): RunningProcess;
  /** Stops the system, the dedicated servers (deleting their data) and the pool. */
  stop(): Promise<void>;
}

/** Options of {@link startFaultEnvironment}. */
export interface FaultEnvironmentOptions {
  /** Names the database (`inkwell_faults_<name>`) and the dedicated servers' folders. */
  readonly name: string;
  /** Start an OpenSearch node of its own too (else the shared one of the stack is used). */
  readonly dedicatedOpenSearch: boolean;
}

/**
 * Starts a dedicated Kafka broker (and OpenSearch node), then every service and the gateway as
 * real processes on free ports against them, on a fresh database next to the stack's, with its
 * own Redis key prefix (shared Redis), and rate limits high enough for the load.
 */
export async function startFaultEnvironment(options: FaultEnvironmentOptions): Promise<FaultEnvironment> {
  const stack = stackEnv();
  const databaseUrl = await ensureDatabase(stack.databaseUrl, `inkwell_faults_${options.name}`);
  await dropSchemas(databaseUrl, SERVICES.map((service) => service.name));
  const kafka = await startDedicatedKafka(options.name);
  let opensearch: DedicatedServer | undefined;
  try {
    opensearch = options.dedicatedOpenSearch ? await startDedicatedOpenSearch(options.name) : undefined;
    const opensearchUrl = opensearch?.address ?? stack.opensearchUrl;
    const system = await startSystem({
      stack: { ...stack, databaseUrl, kafkaBrokers: [kafka.address], opensearchUrl },
      ports: 'free',
      seedDemoData: false,
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_TOKEN_MAX: '10000000', RATE_LIMIT_ANONYMOUS_MAX: '10000000' },
    });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // A Postgres restart ends idle connections; the pool must not crash the run for that.
    pool.on('error', () => {});
    return {
      system,
      pool,
      kafka,
      opensearch,
      opensearchUrl,
      redisUrl: stack.redisUrl,
      process(name) {
        const found = system.processes.find((candidate) => candidate.name === name);
        if (found === undefined) throw new Error(`no process ${name}`);
        return found;
      },
      async stop() {
        await system.stop();
        await pool.end();
        await kafka.destroy();
        await opensearch?.destroy();
      },
    };
  } catch (error) {
    await kafka.destroy();
    await opensearch?.destroy();
    throw error;
  }
}
