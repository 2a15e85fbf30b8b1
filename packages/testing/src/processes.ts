import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from './stack-env.js';

/** A process started by a test, and how to stop it. */
export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** Sends `signal` (e.g. SIGKILL to simulate a crash) and resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /**
   * Starts the process again with the same entry and environment (so the same port) after it
   * has exited or been stopped, and waits until it is ready; `child` is the new process after.
   */
  restart(): Promise<void>;
}

/** Options of {@link startProcess}. */
export interface StartProcessOptions {
  /** Shown in errors. */
  name: string;
  /** TypeScript entry file relative to the repository root, e.g. `services/users/src/main.ts`. */
  entry: string;
  env: Record<string, string>;
  /** Also copy the process output to this process's stdout/stderr (the dev runner does). */
  echo?: boolean;
  /** Resolves true once the process serves; polled until `timeoutMs`. */
  ready: () => Promise<boolean>;
  timeoutMs?: number;
  /**
   * Runs this program instead of `entry` under tsx, with `env` in its environment, e.g. `docker
   * run` of the process's image (deploy/test/images); signals go to this program.
   */
  command?: { file: string; args: string[] };
}

/**
 * Starts a service exactly as `npm run dev` does (node with the TypeScript source condition and
 * tsx), waits until `ready` says so, and fails with the process output if it exits or times out.
 */
export async function startProcess(options: StartProcessOptions): Promise<RunningProcess> {
  let current = spawnChild(options);
  const exited = (): boolean => current.child.exitCode !== null || current.child.signalCode !== null;
  const running: RunningProcess = {
    name: options.name,
    get child() {
      return current.child;
    },
    output: () => current.output(),
    async stop(graceMs = 5_000) {
      if (exited()) return;
      current.child.kill('SIGTERM');
      const timer = setTimeout(() => current.child.kill('SIGKILL'), graceMs);
      await current.exited;
      clearTimeout(timer);
    },
    async kill(signal) {
      if (exited()) return;
      current.child.kill(signal);
      await current.exited;
    },
    async restart() {
      await running.stop();
      current = spawnChild(options);
      await waitReady(options, running);
    },
  };
  await waitReady(options, running);
  return running;
}

interface SpawnedChild {
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

function spawnChild(options: StartProcessOptions): SpawnedChild {
  const root = repoRoot();
  const { file, args } = options.command ?? { file: process.execPath, args: ['--conditions=@inkwell/source', '--import', 'tsx', join(root, options.entry)] };
  const child = spawn(file, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  if (options.echo) {
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

/** Polls `options.ready` until it says so; fails with the output if the process exits or times out. */
async function waitReady(options: StartProcessOptions, running: RunningProcess): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`${options.name} exited with ${running.child.exitCode}:\n${running.output()}`);
    if (await options.ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await running.stop();
  throw new Error(`${options.name} was not ready in time:\n${running.output()}`);
}

/** The lowest port freePort() hands out. */
const TEST_PORTS_FROM = 20_000;
/** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
const EPHEMERAL_PORTS_FROM = ((): number => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > TEST_PORTS_FROM + 1_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
})();
/** Ports tried before freePort() gives up. */
const PORT_ATTEMPTS = 200;

/** Whether a server can listen on `port` of 127.0.0.1 now (it is closed again at once). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1, below the kernel's ephemeral range: no
 * outbound connection (a pool's, a container proxy's) can be given it before the process meant
 * to listen on it binds it, or between a stop and a restart on the same port. A port the kernel
 * picks (`listen(0)`) is from that range: once, in a testcontainers run of `npm test`, a gateway
 * found the port it had been given taken (EADDRINUSE). The search starts at a random port, so
 * that test workers asking at once rarely try the same one.
 */
export async function freePort(): Promise<number> {
  const span = EPHEMERAL_PORTS_FROM - TEST_PORTS_FROM;
  const start = randomInt(span);
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const port = TEST_PORTS_FROM + ((start + attempt) % span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${TEST_PORTS_FROM} and ${EPHEMERAL_PORTS_FROM} after ${PORT_ATTEMPTS} attempts`);
}
