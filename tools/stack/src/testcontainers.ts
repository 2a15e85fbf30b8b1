import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaContainer } from '@testcontainers/kafka';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { RedisContainer } from '@testcontainers/redis';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ENV_FILE = join(REPO_ROOT, '.stack', 'env');

/**
 * The stack on a machine with a Docker engine: Postgres, Redis and Kafka (KRaft) from
 * testcontainers. Writes `.stack/env` (STACK_PATH=testcontainers) once all three answer and keeps
 * them running until this process is stopped; the testcontainers reaper removes them afterwards.
 * tools/lib.sh starts it in the background for `npm run dev` and `npm test`.
 */
async function main(): Promise<void> {
  const [postgres, redis, kafka] = await Promise.all([
    new PostgreSqlContainer('postgres:15').withDatabase('inkwell').withUsername('postgres').withPassword('postgres').start(),
    new RedisContainer('redis:7').start(),
    new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
  ]);
  const values = {
    DATABASE_URL: postgres.getConnectionUri(),
    REDIS_URL: redis.getConnectionUrl(),
    KAFKA_BROKERS: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    STACK_PATH: 'testcontainers',
  };
  mkdirSync(dirname(ENV_FILE), { recursive: true });
  // Written atomically: the shell waits for the file to appear.
  writeFileSync(`${ENV_FILE}.tmp`, Object.entries(values).map(([key, value]) => `${key}=${value}`).join('\n') + '\n');
  renameSync(`${ENV_FILE}.tmp`, ENV_FILE);
  process.stderr.write(`[stack] testcontainers ready:\n${Object.entries(values).map(([k, v]) => `  ${k}=${v}`).join('\n')}\n`);

  const stop = async () => {
    await Promise.allSettled([postgres.stop(), redis.stop(), kafka.stop()]);
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
