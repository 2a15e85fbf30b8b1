import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { renderKustomization } from './kubectl-kustomize.renderer.js';
import { containerEnvironment, podView, selectorProblems, unreadVariables, workload } from './manifest.inspector.js';
import { isConnectionAllowed } from './network-policy.evaluator.js';
import { DEPLOYED_PROCESSES, loadProcessConfig, REPO_ROOT, type DeployedProcess } from './process.catalog.js';
import { schemaProblems } from './schema.validator.js';
import { podRuleProblems, podWorkloads, WRITABLE_ROOT_ANNOTATION, workloadPodView } from './workload.inspector.js';

// The checks of manifests.test.ts must fail on a broken manifest, not only pass on ours: each
// case renders a copy of deploy/k8s with one mistake patched in by an overlay on top of dev.
const copy = mkdtempSync(join(tmpdir(), 'inkwell-k8s-'));
cpSync(join(REPO_ROOT, 'deploy/k8s'), join(copy, 'k8s'), { recursive: true });
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const users = DEPLOYED_PROCESSES.find((process) => process.name === 'users') as DeployedProcess;
let overlays = 0;

/** Renders the dev overlay with `mistake` (kustomization fields) applied on top. */
function renderDevWith(mistake: Record<string, unknown>) {
  const dir = join(copy, 'k8s/overlays', `mistake-${++overlays}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['../dev'], ...mistake }));
  return renderKustomization(dir);
}

/** A JSON 6902 patch of the users Deployment. */
function patchUsersDeployment(...operations: { op: string; path: string; value?: unknown }[]) {
  return { patches: [{ target: { kind: 'Deployment', name: users.name }, patch: stringify(operations) }] };
}

describe('the manifest checks on a broken copy of deploy/k8s', () => {
  it('rendering the unbroken copy finds no problem (the cases below differ from it by their mistake only)', async () => {
    const objects = renderDevWith({});
    expect(await schemaProblems(objects)).toEqual([]);
    expect(selectorProblems(objects)).toEqual([]);
    expect(await unreadVariables(objects, users)).toEqual([]);
  });

  it('rejects a field the Kubernetes schema does not have (a typo kubectl apply --validate=strict refuses)', async () => {
    const objects = renderDevWith(patchUsersDeployment({ op: 'add', path: '/spec/template/spec/containers/0/imagePullPolicyy', value: 'Always' }));
    expect(await schemaProblems(objects)).toEqual(['Deployment users: /spec/template/spec/containers/0/imagePullPolicyy is not a field of the Kubernetes schema']);
  });

  it('rejects an unknown field nested in a known one, and a value of the wrong type', async () => {
    const objects = renderDevWith(
      patchUsersDeployment(
        { op: 'add', path: '/spec/template/spec/securityContext/runAsNonRooot', value: true },
        { op: 'replace', path: '/spec/template/spec/containers/0/resources/limits/memory', value: '256 MB' },
      ),
    );
    const problems = await schemaProblems(objects);
    expect(problems).toContain('Deployment users: /spec/template/spec/securityContext/runAsNonRooot is not a field of the Kubernetes schema');
    expect(problems).toContain('Deployment users: /spec/template/spec/containers/0/resources/limits/memory must match format "quantity"');
  });

  it('rejects a Deployment whose selector does not match its pod template labels', async () => {
    const objects = renderDevWith(patchUsersDeployment({ op: 'replace', path: '/spec/selector/matchLabels/app.kubernetes.io~1name', value: 'user' }));
    expect(await schemaProblems(objects)).toEqual([]);
    expect(selectorProblems(objects)).toEqual(["Deployment users: spec.selector does not select its pod template's labels"]);
  });

  it('rejects a misspelt optional configuration key, which the service itself would ignore without a word', async () => {
    const objects = renderDevWith({ configMapGenerator: [{ name: 'users-config', behavior: 'merge', literals: ['DATABSE_POOL_SIZE=20'] }] });
    const { env } = containerEnvironment(objects, workload(objects, users).container);
    await expect(loadProcessConfig(users, env)).resolves.toMatchObject({ DATABASE_POOL_SIZE: 5 });
    expect(await unreadVariables(objects, users)).toEqual(['DATABSE_POOL_SIZE']);
  });
});

describe('the pod and store checks on a broken copy of deploy/k8s', () => {
  it('reports a writable root filesystem without a reason, a missing probe and a missing spread', () => {
    const objects = renderDevWith(
      patchUsersDeployment(
        { op: 'replace', path: '/spec/template/spec/containers/0/securityContext/readOnlyRootFilesystem', value: false },
        { op: 'remove', path: '/spec/template/spec/containers/0/livenessProbe' },
        { op: 'remove', path: '/spec/template/spec/topologySpreadConstraints/0' },
      ),
    );
    const problems = podWorkloads(objects).flatMap((candidate) => podRuleProblems(objects, candidate));
    expect(problems).toEqual([
      'Deployment users container users: no livenessProbe',
      `Deployment users container users: root filesystem is writable without a ${WRITABLE_ROOT_ANNOTATION} reason`,
      'Deployment users: no topology spread across topology.kubernetes.io/zone',
    ]);
  });

  it('sees a store policy that lets in a process which does not use the store', () => {
    const objects = renderDevWith({
      patches: [{ target: { kind: 'NetworkPolicy', name: 'dev-stores-redis-clients' }, patch: stringify([{ op: 'add', path: '/spec/ingress/0/from/0/podSelector/matchExpressions/0/values/-', value: 'bookshelves' }]) }],
    });
    const redis = podWorkloads(objects).find((candidate) => candidate.object.metadata.name === 'redis');
    const bookshelves = DEPLOYED_PROCESSES.find((process) => process.name === 'bookshelves') as DeployedProcess;
    expect(isConnectionAllowed(objects, { pod: podView(objects, bookshelves) }, { pod: workloadPodView(redis as NonNullable<typeof redis>) }, 6379)).toBe(true);
    expect(containerEnvironment(objects, workload(objects, bookshelves).container).secrets.map((secret) => secret.key)).not.toContain('REDIS_URL');
  });
});

describe('renderKustomization', () => {
  it('says that kubectl is missing when it is', () => {
    expect(() => renderKustomization(join(copy, 'k8s/overlays/dev'), { kubectl: join(copy, 'no-such-kubectl') })).toThrow(/no-such-kubectl not found: .*install kubectl/);
  });

  it('passes on what kustomize says about a broken kustomization', () => {
    const dir = join(copy, 'k8s/overlays/missing-resource');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kustomization.yaml'), stringify({ resources: ['../no-such-folder'] }));
    expect(() => renderKustomization(dir)).toThrow(/kubectl kustomize .*no-such-folder/);
  });
});
