// The process images built by `npm run images`, run the way the Kubernetes base runs them
// (`npm run test:images`, opt-in: it needs a Docker engine and the images; not part of `npm test`).
// Every image alone: its size, its user, no package manager, Node.js 22. Then all of them as one
// system on the test stack, each container with its manifest's user, read-only root filesystem and
// writable mounts only: every one becomes healthy, and each drains and exits 0 on SIGTERM within
// its pod's termination grace period.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { stackEnv, startSystem, type RunningSystem } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderKustomization } from '../kubectl-kustomize.renderer.js';
import { workload } from '../manifest.inspector.js';
import { DEPLOYED_PROCESSES, REPO_ROOT } from '../process.catalog.js';
import { docker, dockerResult, dockerRunArgs, imageExists, inspectImage, processImage, removeContainers } from './docker.js';

/** The size target of every runtime image (deploy/README.md, "Images"). */
const MAX_IMAGE_BYTES = 200 * 1000 * 1000;
const BASE = renderKustomization(join(REPO_ROOT, 'deploy/k8s/base'));
const TEST_LABEL_KEY = 'inkwell.test';
const TEST_LABEL_VALUE = `images-${randomUUID().slice(0, 8)}`;

/** Runs `script` in `sh` inside a fresh container of `image` (its own user) and returns what it printed. */
async function shellIn(image: string, script: string): Promise<string> {
  return docker(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', image, '-c', script]);
}

describe.each(DEPLOYED_PROCESSES.map((deployed) => deployed.name))('the image inkwell/%s', (name) => {
  const image = processImage(name);

  beforeAll(async () => {
    if (!(await imageExists(image))) throw new Error(`${image} is not built: run \`npm run images\` first`);
  });

  it('runs as uid 1000 and is no bigger than 200 MB', async () => {
    const { sizeBytes, user } = await inspectImage(image);
    expect(user).toBe('1000:1000');
    expect(sizeBytes).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
  });

  it('has Node.js 22 and no package manager (npm, npx, corepack, yarn)', async () => {
    const found = await shellIn(image, 'node --version; for tool in npm npx corepack yarn yarnpkg; do command -v "$tool" || true; done; ls /usr/local/lib/node_modules 2>/dev/null || true');
    expect(found.trim().split('\n')).toEqual([expect.stringMatching(/^v22\.\d+\.\d+$/)]);
  });
});

describe('the images as one system, run as the Kubernetes base runs them', () => {
  let system: RunningSystem;
  const containerName = (name: string) => `${TEST_LABEL_VALUE}-${name}`;

  beforeAll(async () => {
    for (const deployed of DEPLOYED_PROCESSES) {
      if (!(await imageExists(processImage(deployed.name)))) throw new Error(`${processImage(deployed.name)} is not built: run \`npm run images\` first`);
    }
    system = await startSystem({
      stack: stackEnv(),
      ports: 'free',
      seedDemoData: false,
      // Containers start slower than processes on a busy machine; the manifests' startup probes allow 180 s.
      readyTimeoutMs: 180_000,
      env: { LOG_LEVEL: 'info' },
      command: ({ name, env }) => {
        const deployed = DEPLOYED_PROCESSES.find((candidate) => candidate.name === name);
        if (deployed === undefined) throw new Error(`no Deployment for ${name}`);
        const args = dockerRunArgs(workload(BASE, deployed), { containerName: containerName(name), label: `${TEST_LABEL_KEY}=${TEST_LABEL_VALUE}`, envNames: Object.keys(env) });
        return { file: 'docker', args: [...args, processImage(name)] };
      },
    });
  }, 20 * 60_000);

  afterAll(async () => {
    await system?.stop();
    await removeContainers(TEST_LABEL_KEY, TEST_LABEL_VALUE);
  });

  it.each(DEPLOYED_PROCESSES)('$name serves as uid 1000 with a read-only root filesystem, writing only where its manifest mounts a volume', async (deployed) => {
    const { container } = workload(BASE, deployed);
    const name = containerName(deployed.name);
    const status = await docker(['exec', name, 'cat', '/proc/1/status']);
    expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    expect(await docker(['exec', name, 'cat', '/proc/1/cmdline'])).toBe('node\0dist/main.js\0');

    const writable = ((container.volumeMounts ?? []) as { mountPath: string }[]).map((mount) => mount.mountPath);
    for (const path of ['/app', `/app/${deployed.workspace}`, '/home/node', '/tmp', '/var/tmp']) {
      const write = await dockerResult(['exec', name, 'sh', '-c', `: > "${path}/.write-probe" && rm "${path}/.write-probe"`]);
      if (writable.includes(path)) expect(write.status, `${path} is mounted writable by the manifest`).toBe(0);
      else expect(write.stderr).toMatch(/Read-only file system/);
    }
    // The program of the manifest's preStop hook is in the image.
    const preStop = (container.lifecycle as { preStop?: { exec?: { command?: string[] } } } | undefined)?.preStop?.exec?.command?.[0];
    if (preStop !== undefined) expect((await dockerResult(['exec', name, 'sh', '-c', `command -v ${preStop}`])).status, `preStop runs ${preStop}`).toBe(0);
  });

  it('answers health: the gateway is ready with every backend up', async () => {
    expect((await fetch(`${system.gatewayUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${system.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', down: [] });
  });

  it('drains on SIGTERM and exits 0 within each pod termination grace period, gateway first', async () => {
    const stopped: Record<string, number | null> = {};
    for (const running of [...system.processes].reverse()) {
      const deployed = DEPLOYED_PROCESSES.find((candidate) => candidate.name === running.name);
      const graceSeconds = (workload(BASE, deployed!).podSpec.terminationGracePeriodSeconds as number | undefined) ?? 30;
      await running.stop(graceSeconds * 1000);
      stopped[running.name] = running.child.exitCode;
    }
    expect(stopped).toEqual(Object.fromEntries(DEPLOYED_PROCESSES.map((deployed) => [deployed.name, 0])));
  }, 10 * 60_000);
});
