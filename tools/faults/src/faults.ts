import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { SERVICES } from '@inkwell/testing';
import { callApi, type ApiRequest } from './api-client.js';
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

/** The gateway gets SIGTERM with requests in flight (it drains them), then is started again. */
export function gatewayTerm(): Fault {
  return {
    name: 'gateway SIGTERM with requests in flight, restarted',
    downMs: 0,
    gatewayDown: true,
    inject: (env) => env.process('gateway').stop(30_000),
    heal: (env) => env.process('gateway').restart(),
    probe: (actor) => probeOf('stories', actor),
  };
}

/**
 * Deletes every Redis key of this system (its REDIS_KEY_PREFIX only: the Redis is shared with
 * other systems, which keep theirs): view dedupe, cursors, rate-limit windows, token cache.
 */
export function redisFlush(): Fault {
  return {
    name: "Redis flushed (this system's key prefix only)",
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

/**
 * The machine's Redis is shut down for `downMs` and started again with the machine's own
 * command. Redis is shared: every other system on the machine loses it too (full run only).
 */
export function redisStop(downMs: number): Fault {
  return {
    name: `Redis stopped ${Math.round(downMs / 1000)} s (shared)`,
    downMs,
    async inject(env) {
      await redisCli(env.redisUrl, 'SHUTDOWN', 'NOSAVE').catch(() => '');
    },
    async heal() {
      await run('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', '6379', '--save', '', '--appendonly', 'no', '--dir', '/var/lib/redis', '--logfile', '/var/log/redis/ci.log']);
    },
    probe: (actor) => ({ method: 'GET', path: '/stories?sort=-hotness&page[size]=2', token: actor.token }),
  };
}

/** The dedicated OpenSearch node is stopped for `downMs`, then started again. */
export function opensearchStop(downMs: number): Fault {
  return {
    name: `OpenSearch stopped ${Math.round(downMs / 1000)} s`,
    downMs,
    async inject(env) {
      if (env.opensearch === undefined) throw new Error('stopping OpenSearch needs the dedicated node');
      await env.opensearch.stop();
    },
    heal: async (env) => env.opensearch?.start(),
    probe: (actor) => ({ method: 'GET', path: '/stories?query=harbour', token: actor.token }),
  };
}

/**
 * The machine's PostgreSQL cluster is restarted (the command of the machine's documentation).
 * Shared by everyone on the machine: full run only, and last.
 */
export function postgresRestart(): Fault {
  return {
    name: 'PostgreSQL restarted (shared)',
    downMs: 0,
    async inject() {
      const versions = readdirSync('/etc/postgresql');
      if (versions.length !== 1) throw new Error(`expected one cluster version under /etc/postgresql, found ${versions.join(', ')}`);
      await run('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0]!, 'main', 'restart'], { timeout: 120_000 });
    },
    heal: async () => {},
    probe: (actor) => probeOf('stories', actor),
  };
}

/** Every fault of the full run, in order (Postgres last: it disturbs everyone on the machine). */
export function fullRunFaults(durations: FaultDurations): Fault[] {
  return [
    kafkaStop(durations.kafkaDownMs),
    ...SERVICES.map((service) => serviceKill(service.name)),
    gatewayTerm(),
    redisFlush(),
    redisStop(durations.redisDownMs),
    opensearchStop(durations.opensearchDownMs),
    postgresRestart(),
  ];
}

/** True when `probe` answers 2xx/204 now. */
export async function probeSucceeds(env: FaultEnvironment, request: ApiRequest): Promise<boolean> {
  const answer = await callApi(env.system.apiUrl, { ...request, timeoutMs: 5_000 });
  return answer.status >= 200 && answer.status < 300;
}
