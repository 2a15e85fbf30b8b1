import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { renderKustomization, type Container } from './kubectl-kustomize.renderer.js';
import { containerEnvironment, podView, unreadVariables, workload } from './manifest.inspector.js';
import { isConnectionAllowed } from './network-policy.evaluator.js';
import { DEPLOYED_PROCESSES, loadProcessConfig, REPO_ROOT } from './process.catalog.js';
import { schemaProblems } from './schema.validator.js';
import { podRuleProblems, podWorkloads } from './workload.inspector.js';

// The prod overlay with components/grpc-tls switched on, rendered from a copy of deploy/k8s (the
// component is a deploy option, off in overlays/dev and overlays/prod as committed).
const SECRET = 'inkwell-grpc-tls';
const copy = mkdtempSync(join(tmpdir(), 'inkwell-k8s-grpc-tls-'));
cpSync(join(REPO_ROOT, 'deploy/k8s'), join(copy, 'k8s'), { recursive: true });
const overlay = join(copy, 'k8s/overlays/grpc-tls');
mkdirSync(overlay);
writeFileSync(join(overlay, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['../prod'], components: ['../../components/grpc-tls'] }));
const objects = renderKustomization(overlay);

// What the Secret holds, as files a process can read here: a self-signed certificate and its key.
const sample = join(copy, 'secret');
mkdirSync(sample);
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(sample, 'tls.key'), '-out', join(sample, 'tls.crt'), '-days', '1', '-subj', '/CN=inkwell-internal'], { stdio: 'pipe' });
cpSync(join(sample, 'tls.crt'), join(sample, 'ca.crt'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

type Volume = { name: string; secret?: { secretName: string; items?: unknown[] } };
type Mount = { name: string; mountPath: string; readOnly?: boolean };
type Probe = { grpc?: { port: number } };

/** Where the container mounts the Secret, or undefined. */
function secretMount(podSpec: Record<string, unknown>, container: Container): string | undefined {
  const volume = ((podSpec.volumes as Volume[] | undefined) ?? []).find((candidate) => candidate.secret?.secretName === SECRET && candidate.secret.items === undefined);
  const mount = ((container.volumeMounts as Mount[] | undefined) ?? []).find((candidate) => candidate.name === volume?.name && candidate.readOnly === true);
  return mount?.mountPath;
}

describe('deploy/k8s/components/grpc-tls (gRPC over TLS between pods)', () => {
  it('renders objects that match the Kubernetes schemas and keep the pod rules', async () => {
    expect(await schemaProblems(objects)).toEqual([]);
    expect(podWorkloads(objects).flatMap((candidate) => podRuleProblems(objects, candidate))).toEqual([]);
  });

  it.each(DEPLOYED_PROCESSES)('gives $name the certificate, key and CA of the mounted Secret, in variables its config.ts reads and accepts', async (process) => {
    const { podSpec, container } = workload(objects, process);
    const mountPath = secretMount(podSpec, container);
    expect(mountPath, `${process.name} mounts ${SECRET} read-only`).toBeDefined();
    const { env } = containerEnvironment(objects, container);
    expect({ cert: env.GRPC_TLS_CERT, key: env.GRPC_TLS_KEY, ca: env.GRPC_TLS_CA }).toEqual({ cert: `${mountPath}/tls.crt`, key: `${mountPath}/tls.key`, ca: `${mountPath}/ca.crt` });
    expect(await unreadVariables(objects, process)).toEqual([]);
    const here = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, mountPath !== undefined && value.startsWith(`${mountPath}/`) ? join(sample, value.slice(mountPath.length + 1)) : value]));
    await expect(loadProcessConfig(process, here)).resolves.toBeDefined();
    // The files are read at start: a CA that is not there stops the process.
    await expect(loadProcessConfig(process, { ...here, GRPC_TLS_CA: join(sample, 'missing.crt') })).rejects.toThrow(/GRPC_TLS_CA: cannot read/);
  });

  it.each(DEPLOYED_PROCESSES.filter((process) => process.component === 'grpc-service'))('probes $name on its plaintext health port, which no pod and nothing outside may reach', (process) => {
    const { container } = workload(objects, process);
    const healthPort = Number(containerEnvironment(objects, container).env.GRPC_HEALTH_PORT);
    expect(healthPort).toBeGreaterThan(0);
    expect(healthPort).not.toBe(process.port);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect((container[probe] as Probe | undefined)?.grpc?.port, probe).toBe(healthPort);
    expect((container.ports as { containerPort: number }[]).map((port) => port.containerPort)).toContain(healthPort);
    const self = { pod: podView(objects, process) };
    expect(isConnectionAllowed(objects, 'external', self, healthPort), 'outside → health port').toBe(false);
    for (const other of DEPLOYED_PROCESSES.filter((candidate) => candidate !== process)) {
      expect(isConnectionAllowed(objects, { pod: podView(objects, other) }, self, healthPort), `${other.name} → health port`).toBe(false);
    }
    // The gRPC port itself is as open as without TLS.
    const gateway = DEPLOYED_PROCESSES.find((candidate) => candidate.component === 'gateway');
    expect(isConnectionAllowed(objects, { pod: podView(objects, gateway!) }, self, process.port)).toBe(true);
  });
});
