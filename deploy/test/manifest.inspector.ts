import { generateKeyPairSync } from 'node:crypto';
import { podSpecOf, type Container, type K8sObject } from './kubectl-kustomize.renderer.js';
import { selects, type PodView } from './network-policy.evaluator.js';
import { configVariables, type DeployedProcess } from './process.catalog.js';

/** The Secret every process reads its store credentials from (deploy/k8s/README.md). */
export const SECRET_NAME = 'inkwell-stores';

/** The services that own a Postgres schema, each with its own two roles (deploy/k8s/README.md). */
const SCHEMA_OWNERS = ['users', 'stories', 'bookshelves', 'messaging', 'blog', 'webhooks'];

/**
 * Stand-ins for the Secret's values (never committed): store addresses, whose ports are the ones
 * the egress policy opens, and credentials that are no address (Kafka SASL user and password).
 */
export const SAMPLE_SECRET: Record<string, string> = {
  ...Object.fromEntries(
    SCHEMA_OWNERS.flatMap((service) => [
      [`${service.toUpperCase()}_DATABASE_URL`, `postgres://inkwell_${service}:password@postgres.example.internal:5432/inkwell`],
      [`${service.toUpperCase()}_DATABASE_MIGRATION_URL`, `postgres://inkwell_${service}_migrator:password@postgres.example.internal:5432/inkwell`],
    ]),
  ),
  REDIS_URL: 'redis://redis.example.internal:6379',
  IDEMPOTENCY_REDIS_URL: 'redis://redis-replays.example.internal:6379',
  KAFKA_BROKERS: 'kafka-0.example.internal:9092,kafka-1.example.internal:9092',
  KAFKA_SASL_USERNAME: 'inkwell',
  KAFKA_SASL_PASSWORD: 'password',
  OPENSEARCH_URL: 'https://inkwell:password@opensearch.example.internal:9200',
};

/** True when a store Secret value is an address (a URL or `host:port` list), not a bare credential. */
export function isStoreAddress(value: string): boolean {
  const first = value.split(',')[0] as string;
  return first.includes('://') || /^[A-Za-z0-9.-]+:\d+$/.test(first);
}

/**
 * The Secret of the signed internal calls (docs/api/foundation.md, "Internal calls"): per process
 * `<process>-private-key` (Ed25519, PKCS#8 PEM) and `<process>-key-id`, and `trusted-keys`, the
 * JSON of every process's public keys (deploy/README.md, "Internal-call keys").
 */
export const INTERNAL_AUTH_SECRET_NAME = 'inkwell-internal-auth';

/** The processes that sign and verify internal calls: every Inkwell process. */
const INTERNAL_AUTH_ISSUERS = ['gateway', 'users', 'stories', 'bookshelves', 'messaging', 'blog', 'webhooks'];

/** Stand-ins for inkwell-internal-auth: a fresh key pair per process (real keys are never committed). */
export const SAMPLE_INTERNAL_AUTH: Record<string, string> = (() => {
  const values: Record<string, string> = {};
  const trusted: Record<string, { kid: string; publicKey: string }[]> = {};
  for (const issuer of INTERNAL_AUTH_ISSUERS) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    values[`${issuer}-private-key`] = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    values[`${issuer}-key-id`] = `${issuer}-sample`;
    trusted[issuer] = [{ kid: `${issuer}-sample`, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() }];
  }
  values['trusted-keys'] = JSON.stringify(trusted);
  return values;
})();

/** The Secret of the key that seals webhook signing secrets (docs/api/webhooks.md, "Stored secrets"). */
export const WEBHOOKS_SECRET_NAME = 'inkwell-webhooks';

/** Sample values of every Secret a process may read, by Secret name. */
export const SAMPLE_SECRETS: Record<string, Record<string, string>> = {
  [SECRET_NAME]: SAMPLE_SECRET,
  [INTERNAL_AUTH_SECRET_NAME]: SAMPLE_INTERNAL_AUTH,
  [WEBHOOKS_SECRET_NAME]: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') },
};

/** A process's Deployment as rendered, with its pod spec, pod labels and own container. */
export interface Workload {
  deployment: K8sObject;
  podSpec: Record<string, unknown>;
  podLabels: Record<string, string>;
  container: Container;
}

/** A Secret key a container reads. */
export interface SecretReference {
  name: string;
  key: string;
}

/** The object of that kind and name among `objects`; throws when there is none. */
export function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
  if (object === undefined) throw new Error(`no ${kind} ${name}`);
  return object;
}

/** The Deployment named after the process and its container of the same name; throws when missing. */
export function workload(objects: readonly K8sObject[], process: DeployedProcess): Workload {
  const deployment = find(objects, 'Deployment', process.name);
  const podSpec = podSpecOf(deployment) as Record<string, unknown>;
  const template = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
  const container = (podSpec.containers as Container[]).find((candidate) => candidate.name === process.name);
  if (container === undefined) throw new Error(`Deployment ${process.name} has no container named ${process.name}`);
  return { deployment, podSpec, podLabels: template.metadata.labels, container };
}

/** The process's pods as NetworkPolicies see them. */
export function podView(objects: readonly K8sObject[], process: DeployedProcess): PodView {
  const { podLabels, container } = workload(objects, process);
  return { labels: podLabels, ports: (container.ports as PodView['ports'] | undefined) ?? [] };
}

/**
 * The environment a container gets (ConfigMaps resolved, Secret values taken from `secretValues`,
 * by Secret name: {@link SAMPLE_SECRETS} unless given) and the Secret keys it reads. Throws on
 * `envFrom` a Secret (it hides which keys are needed), on a Secret key without a value, and on a
 * missing ConfigMap or key.
 */
export function containerEnvironment(
  objects: readonly K8sObject[],
  container: Container,
  secretValues: Record<string, Record<string, string>> = SAMPLE_SECRETS,
): { env: Record<string, string>; secrets: SecretReference[] } {
  const env: Record<string, string> = {};
  const secrets: SecretReference[] = [];
  for (const source of (container.envFrom as { configMapRef?: { name: string }; secretRef?: { name: string } }[] | undefined) ?? []) {
    if (source.secretRef !== undefined) throw new Error(`${container.name}: envFrom a Secret hides which keys it needs; use env with secretKeyRef`);
    if (source.configMapRef !== undefined) Object.assign(env, find(objects, 'ConfigMap', source.configMapRef.name).data as Record<string, string>);
  }
  type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: SecretReference; configMapKeyRef?: SecretReference } };
  for (const variable of (container.env as EnvVar[] | undefined) ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    const configMapKey = variable.valueFrom?.configMapKeyRef;
    if (secret !== undefined) {
      secrets.push(secret);
      const sample = secretValues[secret.name]?.[secret.key];
      if (sample === undefined) throw new Error(`${container.name} reads key ${secret.key} of Secret ${secret.name}: document it in deploy/README.md and add a sample value to SAMPLE_SECRETS`);
      env[variable.name] = sample;
    } else if (configMapKey !== undefined) {
      const value = (find(objects, 'ConfigMap', configMapKey.name).data as Record<string, string>)[configMapKey.key];
      if (value === undefined) throw new Error(`${container.name}: ConfigMap ${configMapKey.name} has no key ${configMapKey.key}`);
      env[variable.name] = value;
    } else if (variable.value !== undefined) {
      env[variable.name] = variable.value;
    }
  }
  return { env, secrets };
}

/**
 * Variables the manifests give the process that it never reads (see `configVariables`): a
 * misspelt or stale key, which the process's own config loader would ignore without a word.
 */
export async function unreadVariables(objects: readonly K8sObject[], process: DeployedProcess): Promise<string[]> {
  const { env } = containerEnvironment(objects, workload(objects, process).container);
  const read = new Set(await configVariables(process));
  return Object.keys(env).filter((name) => !read.has(name));
}

/**
 * Label selectors that miss what they must select, one line each: a Deployment whose
 * `spec.selector` does not select its own pod template (the API server rejects it), and a
 * Service or PodDisruptionBudget that selects no pod template among `objects`.
 */
export function selectorProblems(objects: readonly K8sObject[]): string[] {
  type Selector = Parameters<typeof selects>[0];
  const templates = objects.flatMap((object) => {
    const labels = (object.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template?.metadata?.labels;
    return podSpecOf(object) === undefined ? [] : [{ object, labels: labels ?? {} }];
  });
  const problems: string[] = [];
  for (const { object, labels } of templates) {
    const selector = (object.spec as { selector?: Selector }).selector;
    if (selector === undefined || !selects(selector, labels)) problems.push(`${object.kind} ${object.metadata.name}: spec.selector does not select its pod template's labels`);
  }
  for (const object of objects.filter((candidate) => candidate.kind === 'Service' || candidate.kind === 'PodDisruptionBudget')) {
    const raw = (object.spec as { selector?: Selector | Record<string, string> }).selector;
    if (raw === undefined) continue;
    const selector: Selector = object.kind === 'Service' ? { matchLabels: raw as Record<string, string> } : (raw as Selector);
    if (!templates.some(({ labels }) => selects(selector, labels))) problems.push(`${object.kind} ${object.metadata.name}: its selector matches no pod template`);
  }
  return problems;
}
