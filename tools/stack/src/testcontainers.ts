import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GenericContainer, getContainerRuntimeClient, ImageName, Wait, type StartedTestContainer } from 'testcontainers';
import { LOCAL_STORE_IMAGES } from './local-images.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Where this stack's URLs go (tools/lib.sh exports them); apart from `.stack/env`, the local stack's, which other runs may be reading. */
const ENV_FILE = join(REPO_ROOT, '.stack', 'testcontainers.env');
/** Every container of this stack carries it, with the pid of the process that keeps it. */
const OWNER_LABEL = 'dev.inkwell.stack.owner-pid';
const POSTGRES_PASSWORD = 'postgres';
/** The Kafka listener for clients on this machine, advertised as 127.0.0.1:<its published port>. */
const KAFKA_HOST_LISTENER_PORT = 9094;

/** A free TCP port on loopback (for the Kafka listener, which must know its published port before it starts). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A container of a local store image, labelled with this process as its keeper. */
function localContainer(image: string): GenericContainer {
  return new GenericContainer(image).withLabels({ [OWNER_LABEL]: String(process.pid) });
}

/** Fails, naming them, unless every local store image is in the engine: this stack never pulls. */
async function requireLocalImages(): Promise<void> {
  const client = await getContainerRuntimeClient();
  const missing: string[] = [];
  for (const image of Object.values(LOCAL_STORE_IMAGES)) if (!(await client.image.exists(ImageName.fromString(image)))) missing.push(image);
  if (missing.length > 0) throw new Error(`${missing.length === 1 ? 'image' : 'images'} not in the engine: ${missing.join(', ')} (npm run images builds them; nothing is pulled)`);
}

/**
 * Removes the containers of earlier runs whose keeper died without stopping them (killed, not
 * stopped): without a registry there is no testcontainers reaper (Ryuk) to do it.
 */
async function removeOrphans(): Promise<void> {
  const client = await getContainerRuntimeClient();
  for (const info of await client.container.list()) {
    const owner = Number(info.Labels?.[OWNER_LABEL]);
    if (!Number.isInteger(owner) || owner <= 0) continue;
    try {
      process.kill(owner, 0);
    } catch {
      await client.container.remove(client.container.getById(info.Id), { removeVolumes: true }).catch(() => undefined);
    }
  }
}

/** Postgres (superuser postgres, database inkwell), ready once it takes TCP connections. */
function postgresContainer(): GenericContainer {
  return localContainer(LOCAL_STORE_IMAGES.postgres)
    .withEnvironment({ POSTGRES_USER: 'postgres', POSTGRES_PASSWORD, POSTGRES_DB: 'inkwell' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forSuccessfulCommand('pg_isready -h 127.0.0.1 -U postgres -d inkwell'))
    .withStartupTimeout(120_000);
}

function redisContainer(): GenericContainer {
  return localContainer(LOCAL_STORE_IMAGES.redis).withExposedPorts(6379).withWaitStrategy(Wait.forSuccessfulCommand('redis-cli ping | grep -q PONG'));
}

/** A KRaft broker with a second listener for this machine's clients, on the published port `hostPort`. */
function kafkaContainer(hostPort: number): GenericContainer {
  return localContainer(LOCAL_STORE_IMAGES.kafka)
    .withEnvironment({
      KAFKA_LISTENERS: `PLAINTEXT://:9092,CONTROLLER://:9093,HOST://:${KAFKA_HOST_LISTENER_PORT}`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:9092,HOST://127.0.0.1:${hostPort}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,HOST:PLAINTEXT',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      KAFKA_NUM_PARTITIONS: '3',
    })
    .withExposedPorts({ container: KAFKA_HOST_LISTENER_PORT, host: hostPort })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started|KafkaRaftServer.*started/))
    .withStartupTimeout(180_000);
}

/** A single OpenSearch node (plain HTTP, no security plugin), ready once the cluster is at least yellow. */
function openSearchContainer(): GenericContainer {
  return localContainer(LOCAL_STORE_IMAGES.opensearch)
    .withEnvironment({ OPENSEARCH_HEAP: process.env.OPENSEARCH_HEAP ?? '512m' })
    .withExposedPorts(9200)
    .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=5s', 9200).forStatusCode(200))
    .withStartupTimeout(180_000);
}

/**
 * The stack on a machine with a Docker engine: Postgres, Redis, Kafka (KRaft) and OpenSearch from
 * testcontainers, on the store images built here (LOCAL_STORE_IMAGES; nothing is pulled, so no
 * reaper container either: this process removes what it started when stopped, and the next run
 * removes what a killed one left). Writes `.stack/testcontainers.env` (STACK_PATH=testcontainers)
 * once all four answer and keeps them running until this process is stopped. tools/lib.sh starts
 * it in the background for `npm run dev` and `npm test`.
 */
async function main(): Promise<void> {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  await requireLocalImages();
  await removeOrphans();
  const kafkaPort = await freePort();
  const started: StartedTestContainer[] = [];
  const stop = async () => {
    await Promise.allSettled(started.map((container) => container.stop()));
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  const results = await Promise.allSettled([postgresContainer().start(), redisContainer().start(), kafkaContainer(kafkaPort).start(), openSearchContainer().start()]);
  for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
  const failure = results.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    await Promise.allSettled(started.map((container) => container.stop()));
    throw failure.reason;
  }
  const [postgres, redis, , openSearch] = started as [StartedTestContainer, StartedTestContainer, StartedTestContainer, StartedTestContainer];
  const values = {
    DATABASE_URL: `postgres://postgres:${POSTGRES_PASSWORD}@${postgres.getHost()}:${postgres.getMappedPort(5432)}/inkwell`,
    REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
    OPENSEARCH_URL: `http://${openSearch.getHost()}:${openSearch.getMappedPort(9200)}`,
    STACK_PATH: 'testcontainers',
  };
  mkdirSync(dirname(ENV_FILE), { recursive: true });
  // Written atomically: the shell waits for the file to appear.
  writeFileSync(`${ENV_FILE}.tmp`, Object.entries(values).map(([key, value]) => `${key}=${value}`).join('\n') + '\n');
  renameSync(`${ENV_FILE}.tmp`, ENV_FILE);
  process.stderr.write(`[stack] testcontainers ready (local images):\n${Object.entries(values).map(([k, v]) => `  ${k}=${v}`).join('\n')}\n`);
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  process.stderr.write(`[stack] testcontainers failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
