import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaContainer } from '@testcontainers/kafka';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { RedisContainer } from '@testcontainers/redis';
import { GenericContainer, Wait } from 'testcontainers';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ENV_FILE = join(REPO_ROOT, '.stack', 'env');
/** The same OpenSearch release as tools/stack/opensearch/pom.xml, from the project's official image. */
const OPENSEARCH_IMAGE = 'opensearchproject/opensearch:3.5.0';
const OPENSEARCH_PORT = 9200;

/**
 * A single OpenSearch node set up like the one tools/stack/up.sh starts: single-node discovery,
 * plain HTTP without the security plugin (the demo TLS/users set-up is skipped), a small heap and
 * no disk watermarks. Ready once the cluster is at least yellow.
 */
function openSearchContainer(): GenericContainer {
  const heap = process.env.OPENSEARCH_HEAP ?? '512m';
  return new GenericContainer(OPENSEARCH_IMAGE)
    .withEnvironment({
      'discovery.type': 'single-node',
      'cluster.routing.allocation.disk.threshold_enabled': 'false',
      DISABLE_SECURITY_PLUGIN: 'true',
      DISABLE_INSTALL_DEMO_CONFIG: 'true',
      OPENSEARCH_JAVA_OPTS: `-Xms${heap} -Xmx${heap}`,
    })
    .withExposedPorts(OPENSEARCH_PORT)
    .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=5s', OPENSEARCH_PORT).forStatusCode(200))
    .withStartupTimeout(180_000);
}

/**
 * The stack on a machine with a Docker engine: Postgres, Redis, Kafka (KRaft) and OpenSearch from
 * testcontainers. Writes `.stack/env` (STACK_PATH=testcontainers) once all four answer and keeps
 * them running until this process is stopped; the testcontainers reaper removes them afterwards.
 * tools/lib.sh starts it in the background for `npm run dev` and `npm test`.
 */
async function main(): Promise<void> {
  const [postgres, redis, kafka, openSearch] = await Promise.all([
    new PostgreSqlContainer('postgres:15').withDatabase('inkwell').withUsername('postgres').withPassword('postgres').start(),
    new RedisContainer('redis:7').start(),
    new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
    openSearchContainer().start(),
  ]);
  const values = {
    DATABASE_URL: postgres.getConnectionUri(),
    REDIS_URL: redis.getConnectionUrl(),
    KAFKA_BROKERS: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    OPENSEARCH_URL: `http://${openSearch.getHost()}:${openSearch.getMappedPort(OPENSEARCH_PORT)}`,
    STACK_PATH: 'testcontainers',
  };
  mkdirSync(dirname(ENV_FILE), { recursive: true });
  // Written atomically: the shell waits for the file to appear.
  writeFileSync(`${ENV_FILE}.tmp`, Object.entries(values).map(([key, value]) => `${key}=${value}`).join('\n') + '\n');
  renameSync(`${ENV_FILE}.tmp`, ENV_FILE);
  process.stderr.write(`[stack] testcontainers ready:\n${Object.entries(values).map(([k, v]) => `  ${k}=${v}`).join('\n')}\n`);

  const stop = async () => {
    await Promise.allSettled([postgres.stop(), redis.stop(), kafka.stop(), openSearch.stop()]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  process.stderr.write(`[stack] testcontainers failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
