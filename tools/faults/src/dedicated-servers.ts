import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, repoRoot } from '@inkwell/testing';
import { Kafka, logLevel } from 'kafkajs';
import { until } from './until.js';

/**
 * A Kafka broker or OpenSearch node of the fault run's own, on free ports with its own data
 * directory under `.cache/faults/`, so that stopping it never disturbs the shared stack of
 * tools/stack/up.sh (README.md) that other engineers and CI use. Its jars are the ones up.sh
 * copied from Maven Central into `.cache/`.
 */
export interface DedicatedServer {
  /** `kafka` or `opensearch`. */
  readonly kind: string;
  /** Kafka: `127.0.0.1:<port>`; OpenSearch: `http://127.0.0.1:<port>`. */
  readonly address: string;
  /** The running JVM (undefined while stopped), for its RSS. */
  pid(): number | undefined;
  /** Starts it (same ports and data) and waits until it answers. */
  start(): Promise<void>;
  /** SIGTERM (a controlled shutdown) and waits until the JVM has exited. */
  stop(): Promise<void>;
  /** Stops it and deletes its data directory. */
  destroy(): Promise<void>;
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

/** One JVM child with its log file; restartable with the same arguments. */
class JvmProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly java: string,
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
    const child = spawn(this.java, [...this.args], { env: { ...process.env, ...this.env }, stdio: ['ignore', log, log] });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').slice(-4_000) : '';
  }

  async stop(graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.alive()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.child = undefined;
  }
}

async function waitServing(jvm: JvmProcess, label: string, answers: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  try {
    await until(async () => {
      if (!jvm.alive()) throw new Error(`${label} exited during startup:\n${jvm.log()}`);
      return answers();
    }, { timeoutMs, intervalMs: 500, what: `${label} answers` });
  } catch (error) {
    await jvm.stop();
    throw error;
  }
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
  writeFileSync(log4j, ['log4j.rootLogger=WARN, stdout', 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender', 'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout', 'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n', ''].join('\n'));
  const common = ['-Xms128m', '-Xmx384m', '-Djava.awt.headless=true', `-Dlog4j.configuration=file:${log4j}`, '-cp', `${libs}/*`];
  // A KRaft cluster id is a base64url UUID (22 characters); making it here saves a JVM start. It is
  // passed as `--cluster-id=<id>`: one id in 64 starts with '-', which the tool's argument parser
  // would otherwise take for an option (the format then fails with "expected one argument").
  const format = new JvmProcess('java', [...common, 'kafka.tools.StorageTool', 'format', `--cluster-id=${randomBytes(16).toString('base64url')}`, '-c', properties], join(home, 'format.log'));
  format.spawn();
  await until(async () => !format.alive(), { timeoutMs: 60_000, intervalMs: 200, what: 'kafka storage format' });
  if (!existsSync(join(home, 'data', 'meta.properties'))) throw new Error(`kafka storage format failed:\n${format.log()}`);

  const jvm = new JvmProcess('java', [...common, 'kafka.Kafka', properties], join(home, 'kafka.log'));
  const answers = async () => {
    const admin = new Kafka({ brokers: [address], clientId: 'faults-probe', logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 1_000, requestTimeout: 2_000 }).admin();
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
  const server: DedicatedServer = {
    kind: 'kafka',
    address,
    pid: () => jvm.pid(),
    async start() {
      jvm.spawn();
      await waitServing(jvm, 'kafka', answers, 120_000);
    },
    stop: () => jvm.stop(),
    async destroy() {
      await jvm.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
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
  const jvm = new JvmProcess(
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
  const server: DedicatedServer = {
    kind: 'opensearch',
    address,
    pid: () => jvm.pid(),
    async start() {
      jvm.spawn();
      await waitServing(jvm, 'opensearch', answers, 180_000);
    },
    stop: () => jvm.stop(),
    async destroy() {
      await jvm.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
