import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, KeyRing } from '@inkwell/testing';
import { REPO_ROOT } from '../../../../deploy/test/process.catalog.js';
import { NETWORK, SYSTEM_LABEL, systemSpec, type ContainerSpec } from './system-spec.js';

const run = promisify(execFile);
/** The system's files on this machine: its internal-call keys, the mounted ConfigMaps, its state. */
const STATE_DIR = join(REPO_ROOT, '.stack', 'containers');
const STATE_FILE = join(STATE_DIR, 'state.json');

/** Where the running system answers on this machine (loopback only), as `up` recorded it. */
export interface SystemState {
  /** Origin of the gateway, e.g. http://127.0.0.1:8080. */
  readonly gatewayUrl: string;
  /** The users service's gRPC, published for the test helpers that register users. */
  readonly usersAddress: string;
  /** The Postgres superuser (POSTGRES_USER of the overlay) on the published port, for audits. */
  readonly databaseUrl: string;
  readonly opensearchUrl: string;
  /** The internal-call keys the processes got (inkwell-internal-auth). */
  readonly keysDir: string;
  /** Every container, in start order: the name of its workload. */
  readonly containers: readonly { readonly name: string; readonly role: 'store' | 'process' }[];
}

/** Runs `docker <args>` and returns its stdout; throws with docker's message. */
export async function docker(args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  try {
    const { stdout } = await run('docker', [...args], { env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`docker ${args.slice(0, 2).join(' ')} failed: ${(failure.stderr ?? '').trim() || failure.message}`, { cause: error });
  }
}

/** The container of workload `name`. */
export function containerName(name: string): string {
  return `${NETWORK}-${name}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** A Kubernetes memory quantity (`256Mi`, `1Gi`, bytes) as `docker run --memory` takes it. */
function dockerMemory(quantity: string): string {
  const match = /^(\d+)(Ki|Mi|Gi|K|M|G)?$/.exec(quantity);
  if (match === null) throw new Error(`unsupported memory quantity ${quantity}`);
  const unit = { Ki: 'k', Mi: 'm', Gi: 'g', K: 'k', M: 'm', G: 'g' }[match[2] ?? ''] ?? 'b';
  return `${match[1]}${unit}`;
}

/** Writes a ConfigMap mount's files into a folder of its own (readable by any uid) and returns it. */
function writeConfigFiles(spec: ContainerSpec, mountPath: string, files: ContainerSpec['configFiles'][string]): string {
  const dir = join(STATE_DIR, 'config', spec.name, mountPath.replace(/[^A-Za-z0-9.-]+/g, '_'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of files) writeFileSync(join(dir, file.path), file.content, { mode: 0o555 });
  return dir;
}

/**
 * `docker run` of one container: on the system's network under its aliases, as the pod would run
 * (user, read-only root, no capabilities, no privilege escalation, memory limit, tmpfs for
 * emptyDirs, a volume per claim, ConfigMap files read-only), with `ports` published on loopback.
 * The environment goes through docker's own environment (`-e NAME`), so PEM keys keep their lines.
 */
async function runContainer(spec: ContainerSpec, ports: Record<number, number>): Promise<void> {
  const args = ['run', '--detach', '--pull', 'never', '--name', containerName(spec.name), '--label', SYSTEM_LABEL, '--network', NETWORK, '--hostname', spec.aliases[1]?.split('.')[0] ?? spec.name];
  for (const alias of spec.aliases) args.push('--network-alias', alias);
  if (spec.user !== undefined) args.push('--user', spec.user);
  if (spec.readOnlyRoot) args.push('--read-only');
  args.push('--cap-drop', 'ALL', '--security-opt', 'no-new-privileges');
  if (spec.memory !== undefined) args.push('--memory', dockerMemory(spec.memory));
  for (const path of spec.tmpfs) args.push('--mount', `type=tmpfs,destination=${path},tmpfs-mode=1777`);
  for (const [path, volume] of Object.entries(spec.volumes)) args.push('--mount', `type=volume,source=${volume},destination=${path},volume-label=${SYSTEM_LABEL}`);
  for (const [path, files] of Object.entries(spec.configFiles)) args.push('--mount', `type=bind,source=${writeConfigFiles(spec, path, files)},destination=${path},readonly`);
  for (const [containerPort, hostPort] of Object.entries(ports)) args.push('--publish', `127.0.0.1:${hostPort}:${containerPort}`);
  for (const name of Object.keys(spec.env)) args.push('--env', name);
  args.push(spec.image, ...spec.args);
  await docker(args, { env: { ...process.env, ...spec.env } });
}

/** Removes every container, volume and the network of the system (nothing when it is not there). */
export async function down(): Promise<void> {
  const ids = (await docker(['ps', '--all', '--quiet', '--filter', `label=${SYSTEM_LABEL}`])).split('\n').filter(Boolean);
  if (ids.length > 0) await docker(['rm', '--force', '--volumes', ...ids]);
  const volumes = (await docker(['volume', 'ls', '--quiet', '--filter', `label=${SYSTEM_LABEL}`])).split('\n').filter(Boolean);
  if (volumes.length > 0) await docker(['volume', 'rm', '--force', ...volumes]);
  const networks = (await docker(['network', 'ls', '--quiet', '--filter', `name=^${NETWORK}$`])).split('\n').filter(Boolean);
  if (networks.length > 0) await docker(['network', 'rm', NETWORK]);
  rmSync(STATE_FILE, { force: true });
}

/** True when the store `name` serves (Postgres: takes TCP connections; Kafka: the broker started; OpenSearch: yellow). */
async function storeReady(name: string, state: Pick<SystemState, 'opensearchUrl'>): Promise<boolean> {
  const container = containerName(name);
  try {
    if (name === 'postgres') {
      await docker(['exec', container, 'pg_isready', '-q', '-h', '127.0.0.1'], { timeoutMs: 10_000 });
      return true;
    }
    if (name === 'redis') return (await docker(['exec', container, 'redis-cli', 'ping'], { timeoutMs: 10_000 })).includes('PONG');
    if (name === 'kafka') {
      const { stdout } = await run('docker', ['logs', '--since', await startedAt(container), container], { maxBuffer: 64 * 1024 * 1024 });
      return /Kafka Server started/.test(stdout);
    }
    if (name === 'opensearch') return (await fetch(`${state.opensearchUrl}/_cluster/health?wait_for_status=yellow&timeout=5s`, { signal: AbortSignal.timeout(10_000) })).ok;
  } catch {
    return false;
  }
  throw new Error(`no readiness check for the store ${name}`);
}

/** When the container last started (for reading only this run's log). */
async function startedAt(container: string): Promise<string> {
  return (await docker(['inspect', '--format', '{{.State.StartedAt}}', container])).trim();
}

/** The gateway's /readyz: every dependency (services, Redis) up. */
async function systemReady(gatewayUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    const body = (await response.json()) as { down?: unknown[] };
    return response.ok && Array.isArray(body.down) && body.down.length === 0;
  } catch {
    return false;
  }
}

/** The container's recent log lines, for a failure message. */
async function tail(name: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('docker', ['logs', '--tail', '30', containerName(name)]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', () => resolve(output));
    child.once('error', () => resolve(''));
  });
}

/** Waits (bounded) until `ready` holds; on timeout the error carries the container's last log lines. */
async function waitFor(name: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  try {
    await eventually(ready, { timeoutMs, intervalMs: 500, what: `${containerName(name)} is ready` });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- last lines of ${containerName(name)}:\n${await tail(name)}`, { cause: error });
  }
}

/** Fails, naming them, unless every image is in the engine: the system never pulls. */
async function requireImages(images: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const image of new Set(images)) {
    try {
      await docker(['image', 'inspect', '--format', '{{.Id}}', image]);
    } catch {
      missing.push(image);
    }
  }
  if (missing.length > 0) throw new Error(`not in the engine: ${missing.join(', ')} (npm run images builds them; nothing is pulled)`);
}

/** Options of {@link up}. */
export interface UpOptions {
  /** The gateway's port on 127.0.0.1 (default: a free one). */
  readonly gatewayPort?: number;
  /** Tag of the process images instead of the overlay's (`dev`). */
  readonly imageTag?: string;
  /** How long the whole system may take to become ready (default 5 minutes). */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts the whole system as containers from scratch (whatever ran before is removed): the stores
 * of the dev overlay, then every service and the gateway, on the network `inkwell-system`, each
 * configured from `kubectl kustomize deploy/k8s/overlays/dev` (system-spec.ts). Resolves once the
 * gateway's /readyz finds every dependency up; records the published addresses (state()).
 */
export async function up(options: UpOptions = {}): Promise<SystemState> {
  await down();
  mkdirSync(STATE_DIR, { recursive: true });
  const keysDir = join(STATE_DIR, 'keys');
  const keys = await KeyRing.load(keysDir);
  const gatewayPort = options.gatewayPort ?? (await freePort());
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const specs = systemSpec({ keys, publicBaseUrl: gatewayUrl, ...(options.imageTag === undefined ? {} : { imageTag: options.imageTag }) });
  const published: Record<string, Record<number, number>> = {};
  for (const spec of specs) {
    published[spec.name] = {};
    for (const port of spec.published) (published[spec.name] as Record<number, number>)[port] = spec.name === 'gateway' ? gatewayPort : await freePort();
  }
  const hostPort = (name: string, port: number) => published[name]?.[port] as number;
  const credentials = specs.find((spec) => spec.name === 'postgres')?.env ?? {};
  const state: SystemState = {
    gatewayUrl,
    usersAddress: `127.0.0.1:${hostPort('users', 50051)}`,
    databaseUrl: `postgres://${encodeURIComponent(credentials.POSTGRES_USER ?? 'postgres')}:${encodeURIComponent(credentials.POSTGRES_PASSWORD ?? '')}@127.0.0.1:${hostPort('postgres', 5432)}/${credentials.POSTGRES_DB ?? 'postgres'}`,
    opensearchUrl: `http://127.0.0.1:${hostPort('opensearch', 9200)}`,
    keysDir,
    containers: specs.map((spec) => ({ name: spec.name, role: spec.role })),
  };
  const timeoutMs = options.readyTimeoutMs ?? 300_000;
  await requireImages(specs.map((spec) => spec.image));
  await docker(['network', 'create', '--label', SYSTEM_LABEL, NETWORK]);
  const stores = specs.filter((spec) => spec.role === 'store');
  for (const spec of stores) await runContainer(spec, published[spec.name] ?? {});
  for (const spec of stores) await waitFor(spec.name, () => storeReady(spec.name, state), timeoutMs);
  for (const spec of specs.filter((candidate) => candidate.role === 'process')) await runContainer(spec, published[spec.name] ?? {});
  await waitFor('gateway', () => systemReady(gatewayUrl), timeoutMs);
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
  return state;
}

/** The running system's addresses, as `up` recorded them; throws when it is not up. */
export function state(): SystemState {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as SystemState;
  } catch {
    throw new Error(`the container system is not up (no ${STATE_FILE}): npm run containers -- up`);
  }
}

/**
 * The container of workload `name` as a fault sees it: killed (SIGKILL: no shutdown), stopped
 * (SIGTERM, then SIGKILL after the grace), started again; `restart` resolves once it serves
 * again (a store: its readiness check; a process: the gateway's /readyz with every dependency up).
 */
export function containerControl(name: string, system: SystemState, timeoutMs = 180_000) {
  const container = containerName(name);
  const role = system.containers.find((candidate) => candidate.name === name)?.role;
  if (role === undefined) throw new Error(`the container system has no ${name}`);
  const restart = async () => {
    await docker(['start', container]);
    await waitFor(name, () => (role === 'store' ? storeReady(name, system) : systemReady(system.gatewayUrl)), timeoutMs);
  };
  return {
    name,
    kill: async (signal: NodeJS.Signals) => {
      await docker(['kill', '--signal', signal, container]);
      await docker(['wait', container], { timeoutMs: 60_000 });
    },
    stop: async (graceMs = 10_000) => {
      await docker(['stop', '--time', String(Math.ceil(graceMs / 1000)), container], { timeoutMs: graceMs + 30_000 });
    },
    restart,
    /** Starts it again (same name, network, data). */
    start: restart,
  };
}

/** The directory of this module's state (for the CLI's messages). */
export const STATE_PATH = dirname(STATE_FILE);
