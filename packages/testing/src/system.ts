import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createGrpcClient } from '@inkwell/grpc';
import { Health } from '@inkwell/proto/health';
import { provisionServiceRoles } from './database.js';
import { KeyRing } from './key-ring.js';
import { freePort, startProcess, type RunningProcess, type StartProcessOptions } from './processes.js';
import { repoRoot, type StackEnv } from './stack-env.js';

/** One gRPC service of the system: where its entry is and how it is addressed. */
interface ServiceProcess {
  name: string;
  entry: string;
  /** Environment variable of the service's own listening port. */
  portVariable: string;
  /** Environment variable through which the gateway (and other services) find it. */
  addressVariable: string;
  defaultPort: number;
  /** The Postgres schema it owns; its roles are `inkwell_<schema>` and `inkwell_<schema>_migrator`. */
  schema: string;
  /** Extensions its migrations use, created in its schema when its roles are provisioned. */
  extensions?: readonly string[];
  /** Environment variable of its /metrics port, and that port's default. */
  metricsPortVariable: string;
  defaultMetricsPort: number;
}

/** The gateway's default metrics port (GATEWAY_METRICS_PORT, docs/api/foundation.md, "Service metrics"), apart from its API port. */
export const GATEWAY_METRICS_PORT = 9150;

/**
 * Every backend service, in start order. Adding a service to the system is one line here. Each
 * service gets the `<NAME>_SERVICE_ADDR` of every service listed before it (messaging asks users).
 */
export const SERVICES: readonly ServiceProcess[] = [
  { name: 'users', entry: 'services/users/src/main.ts', portVariable: 'USERS_GRPC_PORT', addressVariable: 'USERS_SERVICE_ADDR', defaultPort: 50051, schema: 'users', metricsPortVariable: 'USERS_METRICS_PORT', defaultMetricsPort: 9151 },
  { name: 'stories', entry: 'services/stories/src/main.ts', portVariable: 'STORIES_GRPC_PORT', addressVariable: 'STORIES_SERVICE_ADDR', defaultPort: 50052, schema: 'stories', extensions: ['btree_gin'], metricsPortVariable: 'STORIES_METRICS_PORT', defaultMetricsPort: 9152 },
  { name: 'bookshelves', entry: 'services/bookshelves/src/main.ts', portVariable: 'BOOKSHELVES_GRPC_PORT', addressVariable: 'BOOKSHELVES_SERVICE_ADDR', defaultPort: 50053, schema: 'bookshelves', metricsPortVariable: 'BOOKSHELVES_METRICS_PORT', defaultMetricsPort: 9153 },
  { name: 'messaging', entry: 'services/messaging/src/main.ts', portVariable: 'MESSAGING_GRPC_PORT', addressVariable: 'MESSAGING_SERVICE_ADDR', defaultPort: 50055, schema: 'messaging', metricsPortVariable: 'MESSAGING_METRICS_PORT', defaultMetricsPort: 9155 },
  { name: 'blog', entry: 'services/blog/src/main.ts', portVariable: 'BLOG_GRPC_PORT', addressVariable: 'BLOG_SERVICE_ADDR', defaultPort: 50054, schema: 'blog', metricsPortVariable: 'BLOG_METRICS_PORT', defaultMetricsPort: 9154 },
  { name: 'webhooks', entry: 'services/webhooks/src/main.ts', portVariable: 'WEBHOOKS_GRPC_PORT', addressVariable: 'WEBHOOKS_SERVICE_ADDR', defaultPort: 50056, schema: 'webhooks', metricsPortVariable: 'WEBHOOKS_METRICS_PORT', defaultMetricsPort: 9156 },
];

/** With {@link SystemOptions.build}, how to run the compiled form of a workspace's `src/main.ts`: its `dist/main.js`, without tsx. */
function builtCommand(options: SystemOptions, entry: string): StartProcessOptions['command'] {
  if (options.build !== true) return undefined;
  return { file: process.execPath, args: [join(repoRoot(), entry.replace(/\/src\/main\.ts$/, '/dist/main.js'))] };
}

/** Options of {@link startSystem}. */
export interface SystemOptions {
  stack: StackEnv;
  /** `fixed`: the documented default ports (dev); `free`: any free ports (tests). */
  ports: 'fixed' | 'free';
  /** Seed the demo data (users, …) while starting. */
  seedDemoData: boolean;
  /** Copy every process's log lines to this terminal. */
  echo?: boolean;
  /** Gateway port when `ports` is `fixed` (default 8080). */
  gatewayPort?: number;
  /** Extra environment for every process (e.g. LOG_LEVEL, rate limits in tests). */
  env?: Record<string, string>;
  /**
   * Serve every service's /metrics: on the default ports in `fixed` mode (always), on free ports
   * in `free` mode only when true (default off there, so parallel systems do not collide).
   */
  metrics?: boolean;
  /** How long each process may take to become ready, at start and at every restart (default 60 s; a very busy machine needs more). */
  readyTimeoutMs?: number;
  /**
   * How each process is run, given its name and environment: by default from its TypeScript
   * entry under tsx; deploy/test/images runs each one's image (`docker run`) instead.
   */
  command?: (process: { name: string; env: Record<string, string> }) => StartProcessOptions['command'];
  /**
   * Run each process from its production build (`node <workspace>/dist/main.js`, what the images
   * run) instead of its TypeScript entry under tsx; the caller builds first (`npm run build`).
   * Ignored for a process that `command` gives a command.
   */
  build?: boolean;
  /**
   * Keep the production drain delays at SIGTERM (SHUTDOWN_DELAY_MS: the gateway answers on 2 s
   * with `/readyz` 503, a service 1 s as NOT_SERVING). Off by default: a test system stops its
   * processes right away.
   */
  drainDelays?: boolean;
}

/** A running Inkwell system. */
export interface RunningSystem {
  /** Base URL of the public API, e.g. http://127.0.0.1:8080/api/v1. */
  apiUrl: string;
  /** Origin of the gateway, e.g. http://127.0.0.1:8080. */
  gatewayUrl: string;
  /**
   * The gateway's Prometheus endpoint, on its metrics port (GATEWAY_METRICS_PORT: 9150 in `fixed`
   * mode, a free port otherwise), e.g. http://127.0.0.1:9150/metrics: not on `gatewayUrl`.
   */
  gatewayMetricsUrl: string;
  processes: RunningProcess[];
  /** gRPC address (`127.0.0.1:<port>`) of every service started, by service name, e.g. `addresses.users`. */
  addresses: Record<string, string>;
  /** Base URL of each service's metrics endpoint (`http://127.0.0.1:<port>/metrics`), by service name, when served. */
  metricsUrls: Record<string, string>;
  /** What every process of this system prefixes its Redis keys with (empty in `fixed` mode). */
  redisKeyPrefix: string;
  /** What every process of this system prefixes its Kafka topics and groups with (empty in `fixed` mode). */
  kafkaNamespace: string;
  /** What every process of this system prefixes its OpenSearch index names with (empty in `fixed` mode). */
  opensearchIndexPrefix: string;
  /**
   * The internal-auth keys of every process (kept in `.stack/keys/`): `keys.signer('gateway')`
   * calls a service as the gateway would, `keys.env('gateway')` starts one more gateway.
   */
  keys: KeyRing;
  /** Stops every process, gateway first. */
  stop(): Promise<void>;
}

/**
 * Starts every service and then the gateway as separate processes, exactly as `npm run dev`
 * does, and waits until each one is ready (gRPC health SERVING; gateway /readyz 200). Each
 * process gets its own internal-auth key pair (created on first use in `.stack/keys/`,
 * gitignored, then reused) and trusts the public keys of all of them. Each service works as its
 * own Postgres roles (runtime and migrator, provisioned first in the stack's database with the
 * stack's superuser URL), as in a deployment (docs/api/foundation.md, "Stores and least privilege").
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const keys = await KeyRing.load(join(repoRoot(), '.stack', 'keys'));
  const isolated = options.ports === 'free' ? isolation() : {};
  const stackEnv: Record<string, string> = {
    DATABASE_URL: options.stack.databaseUrl,
    REDIS_URL: options.stack.redisUrl,
    KAFKA_BROKERS: options.stack.kafkaBrokers.join(','),
    OPENSEARCH_URL: options.stack.opensearchUrl,
    ...isolated,
    // A single process per service: stopping answers on for nobody to route around it.
    ...(options.drainDelays === true ? {} : { SHUTDOWN_DELAY_MS: '0' }),
    ...options.env,
  };
  // The story index this system built under its own prefix goes with it (the node is shared).
  const ownIndexPrefix = isolated.OPENSEARCH_INDEX_PREFIX !== undefined && stackEnv.OPENSEARCH_INDEX_PREFIX === isolated.OPENSEARCH_INDEX_PREFIX ? isolated.OPENSEARCH_INDEX_PREFIX : undefined;
  const stopSystem = async (): Promise<void> => {
    await stopAll(started);
    if (ownIndexPrefix !== undefined) await dropIndices(options.stack.opensearchUrl, ownIndexPrefix);
  };
  const databases = await provisionServiceRoles(options.stack.databaseUrl, SERVICES);
  const started: RunningProcess[] = [];
  const metricsUrls: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  const addressesByName: Record<string, string> = {};
  try {
    const gatewayPort = options.ports === 'fixed' ? (options.gatewayPort ?? 8080) : await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    for (const service of SERVICES) {
      const port = options.ports === 'fixed' ? service.defaultPort : await freePort();
      const address = `127.0.0.1:${port}`;
      const metricsPort = options.ports === 'fixed' ? service.defaultMetricsPort : options.metrics === true ? await freePort() : 0;
      if (metricsPort !== 0) metricsUrls[service.name] = `http://127.0.0.1:${metricsPort}/metrics`;
      const env = { ...keys.env(service.name), ...ownEnv(service.name, keys), ...stackEnv, ...databases[service.schema], ...addresses, [service.portVariable]: String(port), [service.metricsPortVariable]: String(metricsPort), SEED_DEMO_DATA: String(options.seedDemoData), PUBLIC_BASE_URL: gatewayUrl };
      started.push(
        await startProcess({
          name: service.name,
          entry: service.entry,
          echo: options.echo ?? false,
          env,
          command: options.command?.({ name: service.name, env }) ?? builtCommand(options, service.entry),
          // A client per check: the check runs again when the process is restarted later.
          ready: () => checkHealth(address),
          ...(options.readyTimeoutMs === undefined ? {} : { timeoutMs: options.readyTimeoutMs }),
        }),
      );
      addresses[service.addressVariable] = address;
      addressesByName[service.name] = address;
    }

    // Always served: several tests read the gateway's metrics, and a free port keeps parallel systems apart.
    const gatewayMetricsPort = options.ports === 'fixed' ? GATEWAY_METRICS_PORT : await freePort();
    const gatewayEnv = { ...keys.env('gateway'), ...stackEnv, ...addresses, GATEWAY_PORT: String(gatewayPort), GATEWAY_METRICS_PORT: String(gatewayMetricsPort), PUBLIC_BASE_URL: gatewayUrl };
    started.push(
      await startProcess({
        name: 'gateway',
        entry: 'gateway/src/main.ts',
        echo: options.echo ?? false,
        env: gatewayEnv,
        command: options.command?.({ name: 'gateway', env: gatewayEnv }) ?? builtCommand(options, 'gateway/src/main.ts'),
        ready: async () => (await fetch(`${gatewayUrl}/readyz`)).ok,
        ...(options.readyTimeoutMs === undefined ? {} : { timeoutMs: options.readyTimeoutMs }),
      }),
    );
    return {
      apiUrl: `${gatewayUrl}/api/v1`,
      gatewayUrl,
      gatewayMetricsUrl: `http://127.0.0.1:${gatewayMetricsPort}/metrics`,
      processes: started,
      addresses: addressesByName,
      metricsUrls,
      redisKeyPrefix: stackEnv.REDIS_KEY_PREFIX ?? '',
      kafkaNamespace: stackEnv.KAFKA_NAMESPACE ?? '',
      opensearchIndexPrefix: stackEnv.OPENSEARCH_INDEX_PREFIX ?? '',
      keys,
      stop: stopSystem,
    };
  } catch (error) {
    await stopSystem();
    throw error;
  }
}

/**
 * Variables of one service alone: the webhooks service's secret-sealing key (docs/api/webhooks.md,
 * "Stored secrets"), derived from its internal-auth key kept in `.stack/keys/`, so that a local
 * system opens the secrets it stored on an earlier run (a deployment's key is a secret of its own).
 */
function ownEnv(service: string, keys: KeyRing): Record<string, string> {
  if (service !== 'webhooks') return {};
  const seed = keys.env('webhooks').INTERNAL_AUTH_PRIVATE_KEY ?? '';
  return { WEBHOOK_SECRET_KEY: createHash('sha256').update('inkwell webhook secrets\n').update(seed).digest('base64') };
}

/** Deletes the indices named `<prefix>…` on the node (best effort: a node that is down keeps them). */
async function dropIndices(opensearchUrl: string, prefix: string): Promise<void> {
  await fetch(`${opensearchUrl}/${encodeURIComponent(prefix)}*`, { method: 'DELETE', signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
}

/** One gRPC health check of the service at `address`, on a client of its own. */
async function checkHealth(address: string): Promise<boolean> {
  const health = createGrpcClient(Health, address, { defaultDeadlineMs: 1_000 });
  try {
    return await health.checkHealth();
  } finally {
    health.close();
  }
}

/**
 * Test systems share one Kafka broker, one Redis and one OpenSearch node: each gets its own
 * topic/group namespace, key prefix and index name prefix so that no system consumes another's
 * events, sees another's cursors and counters, or searches another's indices.
 */
function isolation(): Record<string, string> {
  const id = randomUUID().slice(0, 8);
  return { KAFKA_NAMESPACE: `t-${id}.`, REDIS_KEY_PREFIX: `t-${id}:`, OPENSEARCH_INDEX_PREFIX: `t-${id}.` };
}

async function stopAll(processes: RunningProcess[]): Promise<void> {
  for (const process of [...processes].reverse()) await process.stop();
}
