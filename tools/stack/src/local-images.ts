import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STACK_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A version property of one of the local stack's poms (tools/stack/<store>/pom.xml): the single source of its release. */
function pomVersion(store: 'kafka' | 'opensearch'): string {
  const pom = readFileSync(join(STACK_DIR, store, 'pom.xml'), 'utf8');
  const version = new RegExp(`<${store}\\.version>([^<]+)</${store}\\.version>`).exec(pom)?.[1];
  if (version === undefined) throw new Error(`tools/stack/${store}/pom.xml has no <${store}.version>`);
  return version;
}

/**
 * The store images built on this machine by deploy/docker/stores/build.sh (`npm run images`), on
 * the locally built Debian base: nothing of them comes from a registry. The testcontainers stack
 * and the container system (`npm run containers`) run these and never pull.
 */
export const LOCAL_STORE_IMAGES = {
  postgres: 'inkwell-local/postgres:15',
  redis: 'inkwell-local/redis:7',
  kafka: `inkwell-local/kafka:${pomVersion('kafka')}`,
  opensearch: `inkwell-local/opensearch:${pomVersion('opensearch')}`,
} as const;
