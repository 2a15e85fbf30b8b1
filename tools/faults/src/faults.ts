import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SERVICES } from '@inkwell/testing';
import { callApi, type ApiRequest } from './api-client.js';
import type { DedicatedServer } from './dedicated-servers.js';
import type { FaultEnvironment } from './fault-environment.js';
import type { Actor } from './world.js';

const run = promisify(execFile);

/** Outage lengths of the faults that stop something, in milliseconds. */
export interface FaultDurations {
  readonly kafkaDownMs: number;
  readonly opensearchDownMs: number;
  readonly redisDownMs: number;
}

/** One fault: what it breaks, how, and which request shows that it is over. */
export interface Fault {
  readonly name: string;
  /** Breaks something (returns once the fault is in place). */
  inject(env: FaultEnvironment): Promise<void>;
  /** Undoes it (returns once the broken part runs again; the API may still be catching up). */
  heal(env: FaultEnvironment): Promise<void>;
  /** How long it stays broken between inject and heal. */
  readonly downMs: number;
  /** A request of the routes that need the broken part: 2xx again means recovered. */
  probe(actor: Actor): ApiRequest;
  /** The gateway itself is down meanwhile: refused connections are expected until heal. */
  readonly gatewayDown?: boolean;
  /**
   * The load sends through a load balancer's eyes: nothing new while the gateway's `/readyz` did
   * not last answer 200 (see `runFault`), as deploy/k8s and any balancer that probes it behave.
   */
  readonly behindReadinessProbe?: boolean;
}

/** The probe of a backend: one of its reads that always succeeds for a healthy system. */
function probeOf(backend: string, actor: Actor): ApiRequest {
  const path = {
    users: `/users/${actor.id}`,
    stories: `/stories/${actor.storyId}`,
    bookshelves: `/bookshelves/${actor.shelfId}`,
    messaging: '/users/me/private-messages',
    blog: '/blog-posts',
  }[backend];
  if (path === undefined) throw new Error(`no probe for ${backend}`);
  return { method: 'GET', path, token: actor.token };
}

async function redisCli(redisUrl: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-u', redisUrl, ...args], { timeout: 30_000 });
  return stdout;
}

/** The broker is stopped (a controlled shutdown) for `downMs`, then started again. */
export function kafkaStop(downMs: number): Fault {
  return {
    name: `Kafka broker stopped ${Math.round(downMs / 1000)} s`,
    downMs,
    inject: (env) => env.kafka.stop(),
    heal: (env) => env.kafka.start(),
    // Nothing of the API needs Kafka to answer (the outbox holds the events meanwhile).
    probe: (actor) => ({ method: 'GET', path: `/stories/${actor.storyId}`, token: actor.token }),
  };
}

/** The service's process is killed (SIGKILL, no shutdown) and started again at once. */
export function serviceKill(service: string): Fault {
  return {
    name: `${service} killed (SIGKILL) and restarted`,
    downMs: 0,
    inject: (env) => env.process(service).kill('SIGKILL'),
    heal: (env) => env.process(service).restart(),
    probe: (actor) => probeOf(service, actor),
  };
}

/**
 * The gateway gets SIGTERM with requests in flight (it drains them), then is started again; the
 * load either goes on sending to it directly, or (`behindReadinessProbe`) stops sending new
 * requests once its `/readyz` turns 503, as a load balancer would.
 */
export function gatewayTerm({ behindReadinessProbe = false } = {}): Fault {
  return {
    name: behindReadinessProbe ? 'gateway SIGTERM, the load behind a /readyz probe (as a load balancer), restarted' : 'gateway SIGTERM with requests in flight, restarted',
    downMs: 0,
    gatewayDown: true,
    behindReadinessProbe,
    inject: (env) => env.process('gateway').stop(30_000),
    heal: (env) => env.process('gateway').restart(),
    probe: (actor) => probeOf('stories', actor),
  };
}

/**
 * Deletes every Redis key of this system (its REDIS_KEY_PREFIX: all keys of a dedicated Redis,
 * only its own of a shared one): view dedupe, cursors, rate-limit windows, token cache.
 */
export function redisFlush(): Fault {
  return {
    name: 'Redis flushed',
    downMs: 0,
    async inject(env) {
      const prefix = env.system.redisKeyPrefix;
      if (prefix === '') throw new Error('refusing to flush a system without a key prefix');
      const keys = (await redisCli(env.redisUrl, '--scan', '--pattern', `${prefix}*`)).split('\n').filter((key) => key.startsWith(prefix));
      for (let i = 0; i < keys.length; i += 500) await redisCli(env.redisUrl, 'DEL', ...keys.slice(i, i + 500));
    },
    heal: async () => {},
    probe: (actor) => probeOf('stories', actor),
  };
}

/** The server a fault acts on; it must be the environment's own (stopping a shared one would disturb others). */
function dedicatedServer(server: DedicatedServer | undefined, what: string): DedicatedServer {
  if (server === undefined) throw new Error(`${what} needs the environment's dedicated server`);
  return server;
}

/** The environment's dedicated server `store` (labelled `label`) is stopped for `downMs`, then started again; `path` shows it is back. */
function dedicatedStop(store: 'redis' | 'opensearch', label: string, downMs: number, path: string): Fault {
  return {
    name: `${label} stopped ${Math.round(downMs / 1000)} s`,
    downMs,
    inject: (env) => dedicatedServer(env[store], `stopping ${label}`).stop(),
    heal: (env) => dedicatedServer(env[store], `starting ${label}`).start(),
    probe: (actor) => ({ method: 'GET', path, token: actor.token }),
  };
}

/** The dedicated Redis is shut down for `downMs` (keeping nothing), then started again, empty. */
export function redisStop(downMs: number): Fault {
  return dedicatedStop('redis', 'Redis', downMs, '/stories?sort=-hotness&page[size]=2');
}

/** The dedicated OpenSearch node is stopped for `downMs`, then started again. */
export function opensearchStop(downMs: number): Fault {
  return dedicatedStop('opensearch', 'OpenSearch', downMs, '/stories?query=harbour');
}

/**
 * The dedicated PostgreSQL cluster crashes (`pg_ctl stop -m immediate`: every server process
 * quits without a checkpoint, as after a power cut of the database alone) and is started again
 * at once (crash recovery replays the WAL). Every connection of every service breaks.
 */
export function postgresCrash(): Fault {
  return {
    name: 'PostgreSQL crashed (immediate stop) and started',
    downMs: 0,
    inject: (env) => dedicatedServer(env.postgres, 'crashing Postgres').crash(),
    heal: (env) => dedicatedServer(env.postgres, 'starting Postgres').start(),
    probe: (actor) => probeOf('stories', actor),
  };
}

/**
 * Every fault of the full run, in order (the Postgres crash last: it breaks every service's
 * connections at once). The webhooks service is killed in a webhook step instead (webhook-faults.ts:
 * mid-burst, its deliveries counted): no API read shows it is back.
 */
export function fullRunFaults(durations: FaultDurations): Fault[] {
  return [
    kafkaStop(durations.kafkaDownMs),
    ...SERVICES.filter((service) => service.name !== 'webhooks').map((service) => serviceKill(service.name)),
    gatewayTerm(),
    gatewayTerm({ behindReadinessProbe: true }),
    redisFlush(),
    redisStop(durations.redisDownMs),
    opensearchStop(durations.opensearchDownMs),
    postgresCrash(),
  ];
}

/** True when `probe` answers 2xx/204 now. */
export async function probeSucceeds(env: FaultEnvironment, request: ApiRequest): Promise<boolean> {
  const answer = await callApi(env.system.apiUrl, { ...request, timeoutMs: 5_000 });
  return answer.status >= 200 && answer.status < 300;
}
