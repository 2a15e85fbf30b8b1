import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { renderKustomization, type K8sObject } from './kubectl-kustomize.renderer.js';
import { containerEnvironment, podView, SECRET_NAME, workload } from './manifest.inspector.js';
import { isConnectionAllowed } from './network-policy.evaluator.js';
import { DEPLOYED_PROCESSES, REPO_ROOT } from './process.catalog.js';
import { schemaProblems } from './schema.validator.js';
import { podRuleProblems, podWorkloads, workloadPodView } from './workload.inspector.js';

// The prod overlay with every operator-managed store component switched on, rendered from a copy
// of deploy/k8s (the components are commented out in overlays/prod until an operator enables them).
const MANAGED = ['managed-postgres', 'managed-kafka', 'managed-opensearch', 'managed-redis'];
const copy = mkdtempSync(join(tmpdir(), 'inkwell-k8s-managed-'));
cpSync(join(REPO_ROOT, 'deploy/k8s'), join(copy, 'k8s'), { recursive: true });
afterAll(() => rmSync(copy, { recursive: true, force: true }));
let overlays = 0;

function renderProdWith(extra: Record<string, unknown> = {}): K8sObject[] {
  const dir = join(copy, 'k8s/overlays', `managed-${++overlays}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['../prod'], components: MANAGED.map((name) => `../../components/${name}`), ...extra }));
  return renderKustomization(dir);
}

/** The topic names of proto/src/topics.ts (`Topics`), read from the source. */
function protoTopics(): string[] {
  const source = readFileSync(join(REPO_ROOT, 'proto/src/topics.ts'), 'utf8');
  const block = /export const Topics = \{([\s\S]*?)\} as const;/.exec(source)?.[1] ?? '';
  return [...block.matchAll(/:\s*'([a-z]+\.[a-z]+\.v\d+)'/g)].map((match) => match[1] as string);
}

describe('deploy/k8s/overlays/prod with the operator-managed stores switched on', () => {
  const objects = renderProdWith();

  it('renders CNPG, Strimzi and OpenSearch operator resources and the Redis that match their schemas or field lists', async () => {
    const kinds = objects.map((object) => `${object.apiVersion} ${object.kind}`);
    for (const kind of ['postgresql.cnpg.io/v1 Cluster', 'kafka.strimzi.io/v1beta2 Kafka', 'kafka.strimzi.io/v1beta2 KafkaNodePool', 'kafka.strimzi.io/v1beta2 KafkaTopic', 'kafka.strimzi.io/v1beta2 KafkaUser', 'opensearch.opster.io/v1 OpenSearchCluster', 'apps/v1 StatefulSet', 'monitoring.coreos.com/v1 ServiceMonitor', 'monitoring.coreos.com/v1 PrometheusRule']) {
      expect(kinds).toContain(kind);
    }
    expect(await schemaProblems(objects)).toEqual([]);
    expect(podWorkloads(objects).flatMap((candidate) => podRuleProblems(objects, candidate))).toEqual([]);
  });

  it('declares one KafkaTopic per topic of proto/src/topics.ts, on the Kafka cluster it defines', () => {
    const kafka = objects.find((object) => object.kind === 'Kafka');
    const topics = objects.filter((object) => object.kind === 'KafkaTopic');
    expect(protoTopics().length).toBeGreaterThan(0);
    expect(topics.map((topic) => (topic.spec as { topicName: string }).topicName).sort()).toEqual(protoTopics().sort());
    for (const topic of [...topics, ...objects.filter((object) => object.kind === 'KafkaNodePool')]) expect(topic.metadata.labels?.['strimzi.io/cluster']).toBe(kafka?.metadata.name);
  });

  it('gives Redis a password from a Secret and lets in only the processes that read REDIS_URL', () => {
    const redis = podWorkloads(objects).find((candidate) => candidate.object.metadata.name === 'redis');
    expect(redis).toBeDefined();
    const container = redis?.containers[0];
    expect(container?.args).toEqual(expect.arrayContaining(['--requirepass', '$(REDIS_PASSWORD)']));
    expect(container?.env).toEqual(expect.arrayContaining([{ name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'inkwell-redis-auth', key: 'password' } } }]));
    const redisPod = workloadPodView(redis as NonNullable<typeof redis>);
    for (const process of DEPLOYED_PROCESSES) {
      const reads = containerEnvironment(objects, workload(objects, process).container).secrets.some((secret) => secret.name === SECRET_NAME && secret.key === 'REDIS_URL');
      expect(isConnectionAllowed(objects, { pod: podView(objects, process) }, { pod: redisPod }, 6379), `${process.name} → redis`).toBe(reads);
    }
  });

  it('reports a field the operator does not know, and one the CNPG schema does not have', async () => {
    const broken = renderProdWith({
      patches: [
        { target: { kind: 'KafkaTopic', name: 'stories-story-v1' }, patch: stringify([{ op: 'add', path: '/spec/partition', value: 6 }]) },
        { target: { kind: 'Cluster', name: 'inkwell-postgres' }, patch: stringify([{ op: 'add', path: '/spec/instance', value: 2 }]) },
      ],
    });
    const problems = await schemaProblems(broken);
    expect(problems).toContain("KafkaTopic stories-story-v1: /spec/partition is not a field of the operator's API");
    expect(problems).toContain('Cluster inkwell-postgres: /spec/instance is not a field of the Kubernetes schema');
  });
});
