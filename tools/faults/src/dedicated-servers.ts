import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, freePort, repoRoot } from '@inkwell/testing';
import { Kafka, logLevel } from 'kafkajs';

const run = promisify(execFile);

/**
 * A server of the fault run's own (Kafka broker, OpenSearch node, PostgreSQL cluster, Redis), on
 * free ports with its own data directory under `.cache/faults/`, so that stopping or crashing it
 * never disturbs the shared stack of tools/stack/up.sh (README.md) that other engineers and CI
 * use. The JVMs run the jars up.sh copied from Maven Central into `.cache/`; Postgres and Redis
 * are the machine's binaries.
 */
export interface DedicatedServer {
  /** `kafka`, `opensearch`, `postgres` or `redis`. */
  readonly kind: string;
  /**
   * Kafka: `127.0.0.1:<port>`; OpenSearch: `http://127.0.0.1:<port>`; Postgres:
   * `postgres://postgres@127.0.0.1:<port>/postgres` (the superuser); Redis: `redis://127.0.0.1:<port>`.
   */
  readonly address: string;
  /** The server's main process (undefined while stopped), for its RSS. */
  pid(): number | undefined;
  /** Starts it (same ports and data) and waits until it answers. */
  start(): Promise<void>;
  /** A controlled shutdown (SIGTERM; Postgres: fast mode); waits until it has exited. */
  stop(): Promise<void>;
  /** An abrupt end without any shutdown work (SIGKILL; Postgres: immediate mode); waits until it has exited. */
  crash(): Promise<void>;
  /** Stops it and deletes its data directory. */
  destroy(): Promise<void>;
}

/** Every dedicated server of this process not yet destroyed. */
const alive = new Set<DedicatedServer>();

/** Remembers `server` until it is destroyed (see {@link destroyDedicatedServers}). */
function tracked(server: DedicatedServer): DedicatedServer {
  const destroy = server.destroy;
  const entry: DedicatedServer = {
    ...server,
    async destroy() {
      await destroy();
      alive.delete(entry);
    },
  };
  alive.add(entry);
  return entry;
}

/** Destroys every dedicated server this process started and has not destroyed yet (on Ctrl-C or a failure). */
export async function destroyDedicatedServers(): Promise<void> {
  for (const server of [...alive].reverse()) await server.destroy().catch(() => {});
}

/** Version of a server from the `<name.version>` property of its pom under tools/stack. */
function pomVersion(pom: string, property: string): string {
  const match = new RegExp(`<${property}>([^<]+)</${property}>`).exec(readFileSync(pom, 'utf8'));
  if (!match?.[1]) throw new Error(`no <${property}> in ${pom}`);
  return match[1];
}

function requireDirectory(path: string, hint: string): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: run tools/stack/up.sh once (${hint})`);
  return path;
}

/** One server child process with its log file; restartable with the same arguments. */
class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly logFile: string,
    private readonly env: Record<string, string> = {},
  ) {}

  pid(): number | undefined {
    return this.child?.pid;
  }

  alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  spawn(): void {
    if (this.alive()) return;
    const log = openSync(this.logFile, 'a');
    const child = spawn(this.command, [...this.args], { env: { ...process.env, ...this.env }, stdio: ['ignore', log, log] });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').slice(-4_000) : '';
  }

  /** SIGTERM (SIGKILL after `graceMs`) and waits until the process has exited. */
  async stop(graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.alive()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.child = undefined;
  }

  /** SIGKILL and waits until the process has exited. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.alive()) return;
    child.kill('SIGKILL');
    await this.exited;
    this.child = undefined;
  }
}

async function waitServing(server: ServerProcess, label: string, answers: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  try {
    await eventually(async () => {
      if (!server.alive()) throw new Error(`${label} exited during startup:\n${server.log()}`);
      return answers();
    }, { timeoutMs, intervalMs: 500, what: () => `${label} answers; the end of its log:\n${server.log()}` });
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Starts `server`; when it does not come up, destroys it (data included) and fails. */
async function started(server: DedicatedServer): Promise<DedicatedServer> {
  try {
    await server.start();
    return server;
  } catch (error) {
    await server.destroy();
    throw error;
  }
}

/** A dedicated server that is one child process of this one (Kafka, OpenSearch, Redis). */
function childServer(kind: string, address: string, home: string, server: ServerProcess, answers: () => Promise<boolean>, startTimeoutMs: number): DedicatedServer {
  return tracked({
    kind,
    address,
    pid: () => server.pid(),
    async start() {
      server.spawn();
      await waitServing(server, kind, answers, startTimeoutMs);
    },
    stop: () => server.stop(),
    crash: () => server.kill(),
    async destroy() {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  });
}

/**
 * Starts a single-node KRaft Kafka broker (the same jars and settings as tools/stack/up.sh) on
 * free ports with its data in `.cache/faults/kafka-<name>`, and waits until it serves metadata.
 */
export async function startDedicatedKafka(name: string): Promise<DedicatedServer> {
  const root = repoRoot();
  const version = pomVersion(join(root, 'tools/stack/kafka/pom.xml'), 'kafka.version');
  const libs = requireDirectory(join(root, '.cache/kafka', version, 'libs'), 'it copies the Kafka jars');
  const home = join(root, '.cache/faults', `kafka-${name}`);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, 'data'), { recursive: true });
  const [port, controller] = [await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const properties = join(home, 'server.properties');
  writeFileSync(
    properties,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controller}`,
      `listeners=PLAINTEXT://${address},CONTROLLER://127.0.0.1:${controller}`,
      `advertised.listeners=PLAINTEXT://${address}`,
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      `log.dirs=${join(home, 'data')}`,
      'group.initial.rebalance.delay.ms=0',
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'auto.create.topics.enable=true',
      'num.partitions=3',
      '',
    ].join('\n'),
  );
  const log4j = join(home, 'log4j.properties');
  writeFileSync(log4j, ['log4j.rootLogger=WARN, stdout', 'log4j.logger.kafka.server.BrokerServer=INFO', 'log4j.logger.kafka.server.ControllerServer=INFO', 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender', 'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout', 'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n', ''].join('\n'));
  const common = ['-Xms128m', '-Xmx384m', '-Djava.awt.headless=true', `-Dlog4j.configuration=file:${log4j}`, '-cp', `${libs}/*`];
  // A KRaft cluster id is a base64url UUID (22 characters); making it here saves a JVM start. It is
  // passed as `--cluster-id=<id>`: one id in 64 starts with '-', which the tool's argument parser
  // would otherwise take for an option (the format then fails with "expected one argument").
  const format = new ServerProcess('java', [...common, 'kafka.tools.StorageTool', 'format', `--cluster-id=${randomBytes(16).toString('base64url')}`, '-c', properties], join(home, 'format.log'));
  format.spawn();
  await eventually(() => !format.alive(), { timeoutMs: 60_000, intervalMs: 200, what: 'kafka storage format' });
  if (!existsSync(join(home, 'data', 'meta.properties'))) throw new Error(`kafka storage format failed:\n${format.log()}`);

  const jvm = new ServerProcess('java', [...common, 'kafka.Kafka', properties], join(home, 'kafka.log'));
  const answers = async () => {
    const admin = new Kafka({ brokers: [address], clientId: 'faults-probe', logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3_000, requestTimeout: 10_000 }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect().catch(() => {});
    }
  };
  return started(childServer('kafka', address, home, jvm, answers, 300_000));
}

/** The newest JDK 21+ under /usr/lib/jvm (OpenSearch 3 needs one; README.md). */
function findJdk21(): string {
  if (process.env.OPENSEARCH_JAVA_HOME) return process.env.OPENSEARCH_JAVA_HOME;
  let best: { home: string; major: number } | undefined;
  for (const entry of existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm') : []) {
    const home = join('/usr/lib/jvm', entry);
    const release = join(home, 'release');
    if (!existsSync(release)) continue;
    const major = Number(/^JAVA_VERSION="(\d+)/m.exec(readFileSync(release, 'utf8'))?.[1] ?? 0);
    if (major >= 21 && existsSync(join(home, 'bin/java')) && (best === undefined || major > best.major)) best = { home, major };
  }
  if (best === undefined) throw new Error('OpenSearch needs a JDK 21+ under /usr/lib/jvm (or OPENSEARCH_JAVA_HOME)');
  return best.home;
}

/**
 * Starts a single OpenSearch node (the jars, launcher and config of tools/stack/up.sh) on free
 * HTTP and transport ports with its home in `.cache/faults/opensearch-<name>`, and waits until
 * the cluster is at least yellow.
 */
export async function startDedicatedOpenSearch(name: string, heap = '384m'): Promise<DedicatedServer> {
  const root = repoRoot();
  const version = pomVersion(join(root, 'tools/stack/opensearch/pom.xml'), 'opensearch.version');
  const libs = requireDirectory(join(root, '.cache/opensearch', version, 'libs'), 'it copies the OpenSearch jars');
  const launcher = join(requireDirectory(join(root, '.cache/opensearch', version, 'launcher'), 'it compiles the launcher'), 'launcher.jar');
  const home = join(root, '.cache/faults', `opensearch-${name}`);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, 'config'), { recursive: true });
  const configSource = join(root, 'tools/stack/opensearch/config');
  for (const file of ['opensearch.yml', 'log4j2.properties', 'jvm.options']) copyFileSync(join(configSource, file), join(home, 'config', file));
  const jvmOptions = readFileSync(join(home, 'config/jvm.options'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const [httpPort, transportPort] = [await freePort(), await freePort()];
  const address = `http://127.0.0.1:${httpPort}`;
  const jvm = new ServerProcess(
    join(findJdk21(), 'bin/java'),
    [`-Xms${heap}`, `-Xmx${heap}`, ...jvmOptions, `-Dopensearch.path.home=${home}`, `-Dopensearch.path.conf=${join(home, 'config')}`, '-cp', `${launcher}:${libs}/*`, 'dev.inkwell.stack.OpenSearchLauncher'],
    join(home, 'opensearch.out'),
    { OPENSEARCH_HTTP_PORT: String(httpPort), OPENSEARCH_TRANSPORT_PORT: String(transportPort) },
  );
  const answers = async () => {
    try {
      const response = await fetch(`${address}/_cluster/health?wait_for_status=yellow&timeout=2s`, { signal: AbortSignal.timeout(5_000) });
      return response.ok;
    } catch {
      return false;
    }
  };
  return started(childServer('opensearch', address, home, jvm, answers, 180_000));
}

/** The OS user the PostgreSQL cluster runs as (initdb and postgres refuse to run as root). */
const POSTGRES_USER = 'postgres';

/** Runs a PostgreSQL program of /usr/local/bin as {@link POSTGRES_USER}. */
async function asPostgres(program: string, args: readonly string[], timeoutMs = 120_000): Promise<void> {
  await run('runuser', ['-u', POSTGRES_USER, '--', join('/usr/local/bin', program), ...args], { timeout: timeoutMs });
}

/** The numeric uid and gid of {@link POSTGRES_USER}. */
async function postgresOwner(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number((await run('id', [flag, POSTGRES_USER])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/**
 * Starts a PostgreSQL cluster of its own (the machine's binaries in /usr/local/bin, run as the
 * `postgres` OS user) with its data in `.cache/faults/postgres-<name>`, listening on a free port
 * of 127.0.0.1 only with trust authentication, `fsync` off (a test cluster: only an OS crash
 * could lose data; a server crash cannot, since `synchronous_commit` stays on). A cluster left
 * running by a killed earlier run of the same name is stopped first.
 */
export async function startDedicatedPostgres(name: string): Promise<DedicatedServer> {
  const home = join(repoRoot(), '.cache/faults', `postgres-${name}`);
  const data = join(home, 'data');
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, ...args]);
  if (existsSync(join(data, 'postmaster.pid'))) await pgCtl('stop', '-m', 'immediate', '-w').catch(() => {});
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const owner = await postgresOwner();
  chownSync(home, owner.uid, owner.gid);
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const settings = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${home}`, '-c fsync=off', '-c full_page_writes=off', '-c max_connections=300'];
  const pid = () => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  return started(
    tracked({
      kind: 'postgres',
      address: `postgres://postgres@127.0.0.1:${port}/postgres`,
      pid,
      start: () => pgCtl('start', '-w', '-t', '120', '-l', join(home, 'postgres.log'), '-o', settings.join(' ')),
      stop: () => pgCtl('stop', '-m', 'fast', '-w', '-t', '120'),
      crash: () => pgCtl('stop', '-m', 'immediate', '-w'),
      async destroy() {
        if (pid() !== undefined) await pgCtl('stop', '-m', 'immediate', '-w').catch(() => {});
        rmSync(home, { recursive: true, force: true });
      },
    }),
  );
}

/**
 * Starts a Redis of its own (`redis-server` of the machine) on a free port of 127.0.0.1, keeping
 * nothing on disk (`--save "" --appendonly no`), its folder `.cache/faults/redis-<name>`.
 */
export async function startDedicatedRedis(name: string): Promise<DedicatedServer> {
  const home = join(repoRoot(), '.cache/faults', `redis-${name}`);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const port = await freePort();
  const server = new ServerProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', home], join(home, 'redis.log'));
  const answers = async () => {
    try {
      return (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'PING'], { timeout: 5_000 })).stdout.trim() === 'PONG';
    } catch {
      return false;
    }
  };
  return started(childServer('redis', `redis://127.0.0.1:${port}`, home, server, answers, 30_000));
}
