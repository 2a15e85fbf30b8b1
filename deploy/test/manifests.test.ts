import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_GRACE_MS, SERVER_NOT_SERVING_FIRST_MS } from '@inkwell/grpc';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderKustomization, splitImage, type Container } from './kubectl-kustomize.renderer.js';
import { containerEnvironment, find, INTERNAL_AUTH_SECRET_NAME, isStoreAddress, podView, SAMPLE_INTERNAL_AUTH, SAMPLE_SECRET, SECRET_NAME, selectorProblems, unreadVariables, WEBHOOKS_SECRET_NAME, workload } from './manifest.inspector.js';
import { isConnectionAllowed, isIsolated, selects } from './network-policy.evaluator.js';
import { configVariables, DEPLOYED_PROCESSES, loadProcessConfig, REPO_ROOT, type DeployedProcess } from './process.catalog.js';
import { schemaProblems } from './schema.validator.js';
import { CLUSTER_SCOPED_KINDS } from './workload.inspector.js';

const K8S = join(REPO_ROOT, 'deploy/k8s');
const OVERLAYS = ['dev', 'prod'] as const;
/** Variables that say where something is: a default (usually 127.0.0.1) is wrong in a cluster. */
const NETWORK_LOCATION = /(_ADDR|_URL|_BROKERS|_HOST|_PORT)$/;

/** The variables each process's config loader reads (process.catalog.ts), looked up once. */
const READS = new Map(await Promise.all(DEPLOYED_PROCESSES.map(async (process) => [process, await configVariables(process)] as const)));

/** A resource quantity as a number: CPU in cores, memory in bytes. */
function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(value));
  if (match === null) throw new Error(`unsupported quantity ${value}`);
  const factors: Record<string, number> = { '': 1, m: 0.001, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };
  return Number(match[1]) * (factors[match[2] ?? ''] as number);
}

function preStopSeconds(container: Container): number {
  const preStop = (container.lifecycle as { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } } | undefined)?.preStop;
  if (preStop?.sleep !== undefined) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  return command[0] === 'sleep' ? Number(command[1]) : 0;
}

/** Seconds a process may spend draining after SIGTERM: the gateway's SHUTDOWN_GRACE_MS, a service's SERVER_NOT_SERVING_FIRST_MS and SERVER_GRACE_MS (@inkwell/grpc). */
function drainSeconds(process: DeployedProcess, env: Record<string, string>): number {
  return (process.component === 'gateway' ? Number(env.SHUTDOWN_GRACE_MS ?? 10_000) : SERVER_NOT_SERVING_FIRST_MS + SERVER_GRACE_MS) / 1000;
}

function storePort(secretKey: string): number {
  const sample = SAMPLE_SECRET[secretKey] as string;
  const first = sample.split(',')[0] as string;
  return Number(first.includes('://') ? new URL(first).port : first.split(':')[1]);
}

function callsService(caller: DeployedProcess, callee: DeployedProcess): boolean {
  return callee.addressVariable !== undefined && (READS.get(caller) ?? []).includes(callee.addressVariable);
}

describe('deploy/k8s/base', () => {
  it('has one folder per Inkwell process, each listed in base/kustomization.yaml, and none for a process that does not exist', () => {
    const listed = (parse(readFileSync(join(K8S, 'base/kustomization.yaml'), 'utf8')) as { resources: string[] }).resources;
    const folders = readdirSync(join(K8S, 'base'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const processes = DEPLOYED_PROCESSES.map((process) => process.name);
    const hint = 'each process in packages/testing SERVICES (and the gateway) needs deploy/k8s/base/<name>, listed in base/kustomization.yaml: see "Adding a service" in deploy/k8s/README.md';
    expect([...listed].sort(), hint).toEqual([...processes].sort());
    expect(folders.sort(), hint).toEqual([...processes].sort());
  });

  it.each(DEPLOYED_PROCESSES)('gives $name a Deployment, a Service on port $port, a ServiceAccount without token, a ConfigMap and a PodDisruptionBudget', (process) => {
    const objects = renderKustomization(join(K8S, 'base', process.name));
    const { podLabels, container } = workload(objects, process);
    const service = find(objects, 'Service', process.name).spec as { clusterIP?: string; selector: Record<string, string>; ports: { port: number; targetPort: number | string }[] };
    // gRPC clients balance per call over every pod the name resolves to: the Service is headless.
    expect(service.clusterIP).toBe(process.component === 'grpc-service' ? 'None' : undefined);
    // Every process serves /metrics on a port of its own, next to its API or gRPC port.
    expect(service.ports.map((port) => port.port)).toEqual(process.metricsPort === undefined ? [process.port] : [process.port, process.metricsPort]);
    const declared = (container.ports as { name?: string; containerPort: number }[]).find((port) => port.name === service.ports[0]?.targetPort || port.containerPort === service.ports[0]?.targetPort);
    expect(declared?.containerPort).toBe(process.port);
    expect(selects({ matchLabels: service.selector }, podLabels)).toBe(true);
    expect(podLabels).toMatchObject({ 'app.kubernetes.io/name': process.name, 'app.kubernetes.io/component': process.component, 'app.kubernetes.io/part-of': 'inkwell' });
    expect(find(objects, 'ServiceAccount', process.name).automountServiceAccountToken).toBe(false);
    const budget = find(objects, 'PodDisruptionBudget', process.name).spec as { selector: { matchLabels: Record<string, string> } };
    expect(selects(budget.selector, podLabels)).toBe(true);
    // kustomize names a generated ConfigMap <name>-<content hash> and rewrites the references to it.
    const configMaps = objects.filter((object) => object.kind === 'ConfigMap').map((object) => object.metadata.name);
    expect(configMaps).toEqual([expect.stringMatching(new RegExp(`^${process.name}-config-[a-z0-9]{10}$`))]);
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMaps[0] } }]);
  });

  it.each(DEPLOYED_PROCESSES)('packages $workspace the way deploy/docker/Dockerfile runs it: node dist/main.js built from src/', (process) => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'deploy/docker/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
    expect(dockerfile).toMatch(/^WORKDIR \/app\/\$\{WORKSPACE\}$/m);
    expect(existsSync(join(REPO_ROOT, process.workspace, 'src/main.ts'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, process.workspace, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.build).toBe('tsc -p tsconfig.build.json');
    const build = JSON.parse(readFileSync(join(REPO_ROOT, process.workspace, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(build.compilerOptions).toMatchObject({ outDir: 'dist', rootDir: 'src', noEmit: false });
  });
});

describe.each(OVERLAYS)('deploy/k8s/overlays/%s', (overlay) => {
  const objects = renderKustomization(join(K8S, 'overlays', overlay));

  it('renders only objects that match the Kubernetes schemas, without a single unknown field', async () => {
    expect(objects.length).toBeGreaterThan(DEPLOYED_PROCESSES.length * 5);
    expect(await schemaProblems(objects)).toEqual([]);
  });

  it('selects with every Deployment, Service and PodDisruptionBudget selector the pods it means', () => {
    expect(selectorProblems(objects)).toEqual([]);
  });

  it.each(DEPLOYED_PROCESSES)('sets no variable $name does not read (a misspelt optional key would be ignored)', async (process) => {
    expect(await unreadVariables(objects, process), `${process.name}: not read by ${process.workspace}/src/config.ts`).toEqual([]);
  });

  it('puts every namespaced object into the overlay namespace', () => {
    const namespaces = new Set(objects.filter((object) => !CLUSTER_SCOPED_KINDS.has(object.kind)).map((object) => object.metadata.namespace));
    expect(namespaces.size).toBe(1);
    expect([...namespaces][0]).toMatch(/^inkwell/);
  });

  it('pins a tag on every image (prod: a release, not latest or dev)', () => {
    for (const process of DEPLOYED_PROCESSES) {
      const { tag, digest } = splitImage(workload(objects, process).container.image);
      expect(tag ?? digest, `${process.name} image`).toBeDefined();
      if (overlay === 'prod') expect(['latest', 'dev']).not.toContain(tag);
    }
  });

  it('reads credentials only from the Secret inkwell-stores, with keys deploy/k8s/README.md documents, and never from a ConfigMap', () => {
    const readme = readFileSync(join(K8S, 'README.md'), 'utf8');
    for (const process of DEPLOYED_PROCESSES) {
      const { secrets } = containerEnvironment(objects, workload(objects, process).container);
      for (const secret of secrets) {
        expect([SECRET_NAME, INTERNAL_AUTH_SECRET_NAME, WEBHOOKS_SECRET_NAME], `${process.name} ${secret.key}`).toContain(secret.name);
        if (secret.name === SECRET_NAME) expect(readme, `README documents ${secret.key}`).toContain(`\`${secret.key}\``);
        // The webhooks service alone reads the key that seals its signing secrets.
        else if (secret.name === WEBHOOKS_SECRET_NAME) expect([process.name, secret.key, readme.includes(`\`${WEBHOOKS_SECRET_NAME}\``)]).toEqual(['webhooks', 'WEBHOOK_SECRET_KEY', true]);
        // A process holds its own private key only.
        else expect([`${process.name}-private-key`, `${process.name}-key-id`, 'trusted-keys'], `${process.name} reads ${secret.key}`).toContain(secret.key);
      }
    }
    for (const configMap of objects.filter((object) => object.kind === 'ConfigMap')) {
      expect(Object.keys(configMap.data as Record<string, string>).filter((key) => key in SAMPLE_SECRET || key.startsWith('INTERNAL_AUTH_') || key in SAMPLE_INTERNAL_AUTH), configMap.metadata.name).toEqual([]);
    }
  });

  it.each(DEPLOYED_PROCESSES)('starts $name with an environment its own config.ts accepts, every address set, listening on all interfaces', async (process) => {
    const { container } = workload(objects, process);
    const { env } = containerEnvironment(objects, container);
    await expect(loadProcessConfig(process, env)).resolves.toBeDefined();
    const unset = (READS.get(process) ?? []).filter((name) => NETWORK_LOCATION.test(name) && env[name] === undefined);
    expect(unset, `${process.name}: set these in deploy/k8s/base/${process.name}/config.env or the Secret`).toEqual([]);
    expect(env[process.hostVariable]).toBe('0.0.0.0');
    expect(Number(env[process.portVariable])).toBe(process.port);
    for (const callee of DEPLOYED_PROCESSES.filter((candidate) => callsService(process, candidate))) {
      expect(env[callee.addressVariable as string]).toBe(`${callee.name}:${callee.port}`);
    }
    expect(env.BENCH_NOAUTH ?? 'false').toBe('false');
  });

  it.each(DEPLOYED_PROCESSES)('runs $name as non-root on a read-only root filesystem without capabilities, with probes and bounded resources', (process) => {
    const { podSpec, container } = workload(objects, process);
    const pod = (podSpec.securityContext ?? {}) as Record<string, unknown>;
    const own = (container.securityContext ?? {}) as Record<string, unknown>;
    expect(own.runAsNonRoot ?? pod.runAsNonRoot).toBe(true);
    expect(own.readOnlyRootFilesystem).toBe(true);
    expect(own.allowPrivilegeEscalation).toBe(false);
    expect((own.capabilities as { drop?: string[]; add?: string[] } | undefined)?.drop).toContain('ALL');
    expect((own.capabilities as { add?: string[] } | undefined)?.add ?? []).toEqual([]);
    expect(((own.seccompProfile ?? pod.seccompProfile) as { type?: string } | undefined)?.type).toBe('RuntimeDefault');
    expect(podSpec.automountServiceAccountToken).toBe(false);
    expect(podSpec.enableServiceLinks).toBe(false);

    type Probe = { grpc?: { port: number }; httpGet?: { path: string; port: number | string } };
    const probes = { startup: container.startupProbe as Probe | undefined, readiness: container.readinessProbe as Probe | undefined, liveness: container.livenessProbe as Probe | undefined };
    if (process.component === 'grpc-service') {
      for (const [kind, probe] of Object.entries(probes)) expect(probe?.grpc?.port, `${kind} probe`).toBe(process.port);
    } else {
      const ports = container.ports as { name?: string; containerPort: number }[];
      const portOf = (probe: Probe | undefined) => ports.find((port) => port.name === probe?.httpGet?.port || port.containerPort === probe?.httpGet?.port)?.containerPort;
      expect(probes.liveness?.httpGet?.path).toBe('/healthz');
      expect(probes.readiness?.httpGet?.path).toBe('/readyz');
      expect(portOf(probes.liveness)).toBe(process.port);
      expect(portOf(probes.readiness)).toBe(process.port);
    }

    const resources = container.resources as { requests?: Record<string, string>; limits?: Record<string, string> } | undefined;
    for (const resource of ['cpu', 'memory']) {
      const request = resources?.requests?.[resource];
      const limit = resources?.limits?.[resource];
      expect(request, `${resource} request`).toBeDefined();
      expect(limit, `${resource} limit`).toBeDefined();
      expect(quantity(limit as string)).toBeGreaterThanOrEqual(quantity(request as string));
    }
  });

  it.each(DEPLOYED_PROCESSES)('gives $name time to drain before Kubernetes kills it', (process) => {
    const { podSpec, container } = workload(objects, process);
    const { env } = containerEnvironment(objects, container);
    const grace = (podSpec.terminationGracePeriodSeconds as number | undefined) ?? 30;
    expect(grace).toBeGreaterThanOrEqual(preStopSeconds(container) + drainSeconds(process, env) + 5);
  });

  it.each(DEPLOYED_PROCESSES)('lets $name make exactly the connections it needs', (process) => {
    const self = podView(objects, process);
    expect(isIsolated(objects, self, 'Ingress')).toBe(true);
    expect(isIsolated(objects, self, 'Egress')).toBe(true);
    expect(isConnectionAllowed(objects, { pod: self }, 'external', 53, 'UDP'), 'DNS').toBe(true);
    for (const secret of containerEnvironment(objects, workload(objects, process).container).secrets.filter((candidate) => candidate.name === SECRET_NAME && isStoreAddress(SAMPLE_SECRET[candidate.key] ?? ''))) {
      expect(isConnectionAllowed(objects, { pod: self }, 'external', storePort(secret.key)), `${process.name} → ${secret.key}`).toBe(true);
    }
    expect(isConnectionAllowed(objects, 'external', { pod: self }, process.port), `outside → ${process.name}`).toBe(process.component === 'gateway');
    if (process.metricsPort !== undefined) expect(isConnectionAllowed(objects, 'external', { pod: self }, process.metricsPort), `Prometheus → ${process.name} metrics`).toBe(true);
    for (const callee of DEPLOYED_PROCESSES.filter((candidate) => candidate !== process && candidate.component === 'grpc-service')) {
      const expected = process.component === 'gateway' || callsService(process, callee);
      expect(isConnectionAllowed(objects, { pod: self }, { pod: podView(objects, callee) }, callee.port), `${process.name} → ${callee.name}`).toBe(expected);
    }
  });

  it.each(DEPLOYED_PROCESSES)('lets Prometheus scrape $name /metrics on its metrics port, which its config.ts reads', async (process) => {
    const { deployment, container } = workload(objects, process);
    const template = (deployment.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template;
    expect(process.metricsPort).toBeDefined();
    expect(template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(process.metricsPort), 'prometheus.io/path': '/metrics' });
    expect((container.ports as { name?: string; containerPort: number }[]).find((port) => port.name === 'metrics')?.containerPort).toBe(process.metricsPort);
    const { env } = containerEnvironment(objects, container);
    const variable = `${process.portVariable.replace(/_(GRPC_)?PORT$/, '')}_METRICS_PORT`;
    expect(READS.get(process)).toContain(variable);
    expect(Number(env[variable])).toBe(process.metricsPort);
  });
});

describe('deploy/k8s/overlays/prod availability', () => {
  const objects = renderKustomization(join(K8S, 'overlays/prod'));

  it('runs at least two pods of every gRPC service', () => {
    for (const process of DEPLOYED_PROCESSES.filter((candidate) => candidate.component === 'grpc-service')) {
      expect((workload(objects, process).deployment.spec as { replicas?: number }).replicas, process.name).toBeGreaterThanOrEqual(2);
    }
  });

  it('scales the gateway on CPU from two pods, and leaves its replica count to the autoscaler', () => {
    const gateway = DEPLOYED_PROCESSES.find((process) => process.component === 'gateway') as DeployedProcess;
    const autoscalers = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
    expect(autoscalers).toHaveLength(1);
    const spec = autoscalers[0]?.spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number; metrics: { resource?: { name: string } }[] };
    expect(spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: gateway.name });
    expect(spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(spec.metrics.map((metric) => metric.resource?.name)).toContain('cpu');
    const { deployment, container } = workload(objects, gateway);
    expect((deployment.spec as { replicas?: number }).replicas).toBeUndefined();
    expect((container.resources as { requests: { cpu?: string } }).requests.cpu).toBeDefined();
  });
});
