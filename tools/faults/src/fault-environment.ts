import { dropSchemas, ensureDatabase, SERVICES, stackEnv, startSystem, type RunningProcess, type RunningSystem } from '@inkwell/testing';
import pg from 'pg';
import { startDedicatedKafka, startDedicatedOpenSearch, startDedicatedPostgres, startDedicatedRedis, type DedicatedServer } from './dedicated-servers.js';

/** What a fault does to a process of the system: stop it, kill it, start it again. */
export type ControllableProcess = Pick<RunningProcess, 'name' | 'stop' | 'kill' | 'restart'>;

/** A system for fault runs: its own database, its own Kafka broker, maybe its own OpenSearch node, Postgres and Redis. */
export interface FaultEnvironment {
  readonly system: RunningSystem;
  /** A pool on the system's database (every service's schema) for audits. */
  readonly pool: pg.Pool;
  readonly kafka: DedicatedServer;
  /** The dedicated node when one was asked for (faults that stop OpenSearch need it). */
  readonly opensearch: DedicatedServer | undefined;
  /** The dedicated PostgreSQL cluster when asked for (the fault that crashes Postgres needs it). */
  readonly postgres: DedicatedServer | undefined;
  /** The dedicated Redis when asked for (the fault that stops Redis needs it). */
  readonly redis: DedicatedServer | undefined;
  readonly opensearchUrl: string;
  readonly redisUrl: string;
  /** The running process of a service or the gateway (a container of the container system, too). */
  process(name: string): ControllableProcess;
  /** Stops the system, the pool and the dedicated servers (deleting their data). */
  stop(): Promise<void>;
}

/** Options of {@link startFaultEnvironment}. */
export interface FaultEnvironmentOptions {
  /** Names the database (`inkwell_faults_<name>`) and the dedicated servers' folders. */
  readonly name: string;
  /** Start an OpenSearch node of its own too (else the shared one of the stack is used). */
  readonly dedicatedOpenSearch: boolean;
  /**
   * Start a PostgreSQL cluster and a Redis of its own too (else the stack's shared ones are used,
   * with a database and a key prefix of this system's own; nothing may then stop them).
   */
  readonly dedicatedStores: boolean;
  /** Copy every process's log lines to this terminal. */
  readonly echo?: boolean;
  /** Run the services and the gateway from their production build (`dist/`, built beforehand), as the images do. */
  readonly build?: boolean;
}

/**
 * Starts a dedicated Kafka broker (and, when asked, OpenSearch node, PostgreSQL cluster and
 * Redis), then every service and the gateway as real processes on free ports against them, on a
 * fresh database `inkwell_faults_<name>`, with its own Redis key prefix, and rate limits high
 * enough for the load. On a failure everything started so far is stopped and deleted.
 */
export async function startFaultEnvironment(options: FaultEnvironmentOptions): Promise<FaultEnvironment> {
  const stack = stackEnv();
  const servers: DedicatedServer[] = [];
  const dedicated = async (start: (name: string) => Promise<DedicatedServer>) => {
    const server = await start(options.name);
    servers.push(server);
    return server;
  };
  const destroyServers = async () => {
    for (const server of servers.splice(0).reverse()) await server.destroy();
  };
  try {
    const postgres = options.dedicatedStores ? await dedicated(startDedicatedPostgres) : undefined;
    const redis = options.dedicatedStores ? await dedicated(startDedicatedRedis) : undefined;
    const kafka = await dedicated(startDedicatedKafka);
    const opensearch = options.dedicatedOpenSearch ? await dedicated(startDedicatedOpenSearch) : undefined;
    const databaseUrl = await ensureDatabase(postgres?.address ?? stack.databaseUrl, `inkwell_faults_${options.name}`);
    await dropSchemas(databaseUrl, SERVICES.map((service) => service.name));
    const opensearchUrl = opensearch?.address ?? stack.opensearchUrl;
    const redisUrl = redis?.address ?? stack.redisUrl;
    const system = await startSystem({
      stack: { databaseUrl, redisUrl, kafkaBrokers: [kafka.address], opensearchUrl },
      ports: 'free',
      seedDemoData: false,
      echo: options.echo ?? false,
      build: options.build ?? false,
      // The machine is shared: a start (tsx compiling, migrations) can take minutes under load.
      readyTimeoutMs: 300_000,
      // The gateway's SIGTERM fault measures the production drain.
      drainDelays: true,
      // The webhook steps' receivers listen on loopback (docs/api/webhooks.md, "Outbound safety").
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_TOKEN_MAX: '10000000', RATE_LIMIT_ANONYMOUS_MAX: '10000000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
    });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // A Postgres crash ends idle connections; the pool must not crash the run for that.
    pool.on('error', () => {});
    return {
      system,
      pool,
      kafka,
      opensearch,
      postgres,
      redis,
      opensearchUrl,
      redisUrl,
      process(name) {
        const found = system.processes.find((candidate) => candidate.name === name);
        if (found === undefined) throw new Error(`no process ${name}`);
        return found;
      },
      async stop() {
        await system.stop();
        await pool.end();
        await destroyServers();
      },
    };
  } catch (error) {
    await destroyServers();
    throw error;
  }
}
