import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../../deploy/test/process.catalog.js';
import { down, state, up } from './container-system.js';
import { OVERLAY } from './system-spec.js';

const USAGE = `usage: npm run containers -- up|down|status|smoke
  up      the whole system as containers (stores, services, gateway) on the Docker network inkwell-system,
          configured from \`kubectl kustomize ${OVERLAY}\`; the gateway on 127.0.0.1:$INKWELL_CONTAINERS_PORT (default 8080)
  down    removes its containers, volumes and network
  status  where it answers
  smoke   the smoke run against it (tools/stack/test/container-system.smoke.ts): starts it, checks, removes it
Images: the store images and the process images of \`npm run images\`; INKWELL_CONTAINERS_TAG picks the process images' tag (default: the overlay's).`;

/** A port from the environment variable `name`, or `fallback`. */
function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name} must be a port number, not '${raw}'`);
  return port;
}

async function main(command: string | undefined): Promise<number> {
  switch (command) {
    case 'up': {
      const tag = process.env.INKWELL_CONTAINERS_TAG;
      const system = await up({ gatewayPort: portFrom('INKWELL_CONTAINERS_PORT', 8080), ...(tag ? { imageTag: tag } : {}) });
      process.stdout.write(`[containers] up: API ${system.gatewayUrl}/api/v1 (${system.containers.length} containers on the network inkwell-system)\n`);
      return 0;
    }
    case 'down':
      await down();
      process.stdout.write('[containers] down\n');
      return 0;
    case 'status':
      process.stdout.write(`${JSON.stringify(state(), null, 2)}\n`);
      return 0;
    case 'smoke': {
      const vitest = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.containers.config.ts'], { cwd: join(REPO_ROOT, 'tools', 'stack'), stdio: 'inherit' });
      return vitest.status ?? 1;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv[2]).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`[containers] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
