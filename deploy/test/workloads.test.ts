import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKustomization, type K8sObject } from './kubectl-kustomize.renderer.js';
import { containerEnvironment, find, podView, SECRET_NAME, workload } from './manifest.inspector.js';
import { isConnectionAllowed } from './network-policy.evaluator.js';
import { DEPLOYED_PROCESSES, REPO_ROOT } from './process.catalog.js';
import { podRuleProblems, podWorkloads, workloadPodView } from './workload.inspector.js';

const K8S = join(REPO_ROOT, 'deploy/k8s');

describe.each(['dev', 'prod'] as const)('every pod of deploy/k8s/overlays/%s', (overlay) => {
  const objects = renderKustomization(join(K8S, 'overlays', overlay));

  it('keeps the pod rules: probes, requests ≤ limits, non-root, read-only root, no token, a priority class, spread over zones and nodes', () => {
    const workloads = podWorkloads(objects);
    expect(workloads.length).toBeGreaterThanOrEqual(DEPLOYED_PROCESSES.length);
    expect(workloads.flatMap((candidate) => podRuleProblems(objects, candidate))).toEqual([]);
  });

  it('gives the gateway the highest priority of all Inkwell pods', () => {
    const values = new Map(objects.filter((object) => object.kind === 'PriorityClass').map((object) => [object.metadata.name, object.value as number]));
    const priorityOf = (name: string) => values.get(podWorkloads(objects).find((candidate) => candidate.object.metadata.name === name)?.podSpec.priorityClassName as string) ?? -1;
    const gateway = priorityOf('gateway');
    for (const other of podWorkloads(objects).filter((candidate) => candidate.object.metadata.name !== 'gateway')) {
      expect(priorityOf(other.object.metadata.name), other.object.metadata.name).toBeLessThan(gateway);
    }
  });
});

/** The Secret a dev overlay generates, decoded. */
function secretValues(objects: readonly K8sObject[], name: string): Record<string, string> {
  const data = find(objects, 'Secret', name).data as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

/** Host and port of a store address: a URL, or the first `host:port` of a comma-separated list. */
function hostAndPort(value: string): { host: string; port: number } {
  const first = value.split(',')[0] as string;
  if (first.includes('://')) {
    const url = new URL(first);
    return { host: url.hostname, port: Number(url.port) };
  }
  const [host, port] = first.split(':');
  return { host: host as string, port: Number(port) };
}

describe('the stores of deploy/k8s/overlays/dev (components/dev-stores)', () => {
  const objects = renderKustomization(join(K8S, 'overlays/dev'));
  const stores = secretValues(objects, SECRET_NAME);

  it('runs Postgres, Redis, Kafka (KRaft) and OpenSearch (no security plugin) as StatefulSets with a volume each', () => {
    const statefulSets = podWorkloads(objects).filter((candidate) => candidate.object.kind === 'StatefulSet');
    expect(statefulSets.map((candidate) => candidate.object.metadata.name).sort()).toEqual(['kafka', 'opensearch', 'postgres', 'redis']);
    for (const store of statefulSets) {
      const claims = ((store.object.spec as { volumeClaimTemplates?: { metadata: { name: string } }[] }).volumeClaimTemplates ?? []).map((claim) => claim.metadata.name);
      const mounts = store.containers.flatMap((container) => ((container.volumeMounts as { name: string }[] | undefined) ?? []).map((mount) => mount.name));
      expect(claims.length, store.object.metadata.name).toBeGreaterThan(0);
      for (const claim of claims) expect(mounts, `${store.object.metadata.name} mounts ${claim}`).toContain(claim);
    }
    const env = (name: string) => Object.fromEntries(((statefulSets.find((candidate) => candidate.object.metadata.name === name)?.containers[0]?.env as { name: string; value?: string }[]) ?? []).map((variable) => [variable.name, variable.value]));
    expect(statefulSets.find((candidate) => candidate.object.metadata.name === 'kafka')?.containers[0]?.image).toMatch(/^apache\/kafka:/);
    expect(env('kafka').KAFKA_PROCESS_ROLES?.split(',').sort()).toEqual(['broker', 'controller']);
    expect(env('opensearch')).toMatchObject({ 'discovery.type': 'single-node', DISABLE_SECURITY_PLUGIN: 'true' });
  });

  it('generates the Secret inkwell-stores with an address for every key a process reads, each a Service of a store', () => {
    const keys = new Set(DEPLOYED_PROCESSES.flatMap((process) => containerEnvironment(objects, workload(objects, process).container).secrets.filter((secret) => secret.name === SECRET_NAME).map((secret) => secret.key)));
    expect(Object.keys(stores).sort()).toEqual([...keys].sort());
    for (const [key, value] of Object.entries(stores)) {
      const { host, port } = hostAndPort(value);
      const service = find(objects, 'Service', host.split('.').length === 2 ? (host.split('.')[1] as string) : host);
      expect((service.spec as { ports: { port: number }[] }).ports.map((candidate) => candidate.port), key).toContain(port);
    }
  });

  it('lets into each store exactly the processes that read one of its keys, and nothing from outside', () => {
    // Several keys may name one store: each service has its own Postgres URLs (its own roles).
    const keysByStore = new Map<string, { port: number; keys: string[] }>();
    for (const [key, value] of Object.entries(stores)) {
      const { host, port } = hostAndPort(value);
      const serviceName = host.split('.').length === 2 ? (host.split('.')[1] as string) : host;
      const entry = keysByStore.get(`${serviceName}:${port}`) ?? { port, keys: [] };
      entry.keys.push(key);
      keysByStore.set(`${serviceName}:${port}`, entry);
    }
    for (const [address, { port, keys }] of keysByStore) {
      const serviceName = address.split(':')[0] as string;
      const key = keys.join(', ');
      const selector = (find(objects, 'Service', serviceName).spec as { selector: Record<string, string> }).selector;
      const store = podWorkloads(objects).find((candidate) => Object.entries(selector).every(([label, wanted]) => candidate.podLabels[label] === wanted));
      expect(store, `${key}: a store behind Service ${serviceName}`).toBeDefined();
      const storePod = workloadPodView(store as NonNullable<typeof store>);
      for (const process of DEPLOYED_PROCESSES) {
        const reads = containerEnvironment(objects, workload(objects, process).container).secrets.some((secret) => secret.name === SECRET_NAME && keys.includes(secret.key));
        expect(isConnectionAllowed(objects, { pod: podView(objects, process) }, { pod: storePod }, port), `${process.name} → ${serviceName}:${port}`).toBe(reads);
      }
      expect(isConnectionAllowed(objects, 'external', { pod: storePod }, port), `outside → ${serviceName}`).toBe(false);
    }
  });
});
