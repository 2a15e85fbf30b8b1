import validationErrorClass from '@kubernetes-models/validate/runtime/validation_error';
import type { K8sObject } from './kubectl-kustomize.renderer.js';
import { operatorFieldProblems } from './operator.fields.js';

/** What the compiled validators throw (ajv's ValidationError; the package's typings describe the CommonJS module instead). */
const ValidationError = validationErrorClass as unknown as new () => Error & { errors: { instancePath: string; keyword: string; message?: string }[] };

/** What a kubernetes-models class offers here: the validator compiled from the Kubernetes OpenAPI schema. */
interface ModelClass {
  prototype: { validate(this: unknown): void };
}

/**
 * Checks every object against the Kubernetes OpenAPI schema of its apiVersion and kind, offline,
 * with the validators the `kubernetes-models` package compiles from that schema (types, formats
 * such as resource quantities, enums, required fields, int-or-string), and returns one line per
 * problem (empty when all are valid): `<Kind> <name>: <path> <what is wrong>`.
 *
 * Strict about fields, as `kubectl apply --validate=strict` and the API server's strict field
 * validation are: the compiled validators accept unknown properties (the Kubernetes schemas do not
 * say `additionalProperties: false`), so the validator runs on a view of the object that records
 * which properties it looked at; a property of an object it never looked at is not in the schema,
 * and is reported as an unknown field. Maps (labels, ConfigMap data, resource lists) are read
 * entry by entry, so their keys count as known. A kind without a schema in kubernetes-models (a
 * custom resource) is a problem too.
 */
export async function schemaProblems(objects: readonly K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const where = `${object.kind} ${object.metadata?.name ?? '(no name)'}`;
    const model = await modelOf(object.apiVersion, object.kind);
    if (model === undefined) {
      const listed = operatorFieldProblems(object);
      if (listed === undefined) problems.push(`${where}: kubernetes-models has no schema for ${object.apiVersion} ${object.kind}, nor deploy/test/operator.fields.ts a field list`);
      else problems.push(...listed.map((problem) => `${where}: ${problem}`));
      continue;
    }
    const visited = new Map<object, Set<string>>();
    const checked = withUnwrappedSecretData(object);
    try {
      model.prototype.validate.call(recordingView(checked, visited));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // The validators report every error (not only the first), so they have walked the whole object.
      for (const issue of error.errors) problems.push(`${where}: ${issue.instancePath || '/'} ${issue.message ?? issue.keyword}`);
    }
    problems.push(...unknownFields(checked, '', visited).map((path) => `${where}: ${path} is not a field of the Kubernetes schema`));
  }
  return problems;
}

/**
 * kustomize wraps long base64 values of a Secret's `data` at 76 characters; the API server's
 * decoder skips the line breaks, the compiled `byte` format does not. The copy it returns has
 * them removed, so that the format check sees what the server decodes.
 */
function withUnwrappedSecretData(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || object.data === null || typeof object.data !== 'object') return object;
  const data = Object.fromEntries(Object.entries(object.data as Record<string, unknown>).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value]));
  return { ...object, data };
}

const models = new Map<string, Promise<Record<string, unknown> | undefined>>();

/** npm packages with the compiled schemas of custom resources, by API group. */
const CUSTOM_RESOURCE_MODELS: Readonly<Record<string, string>> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
};

async function modelOf(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  let module = models.get(apiVersion);
  if (module === undefined) {
    // kubernetes-models/<group>/<version>, or kubernetes-models/v1 for the core group.
    // The built-in APIs from kubernetes-models, custom resources from their @kubernetes-models package.
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const source = CUSTOM_RESOURCE_MODELS[group] ?? 'kubernetes-models';
    module = import(`${source}/${apiVersion}`).then(
      (loaded) => loaded as Record<string, unknown>,
      () => undefined,
    );
    models.set(apiVersion, module);
  }
  const model = (await module)?.[kind];
  return typeof model === 'function' ? (model as unknown as ModelClass) : undefined;
}

/** A read-only view of `value` that notes, per object, which own properties were read. */
function recordingView<T>(value: T, visited: Map<object, Set<string>>): T {
  if (value === null || typeof value !== 'object') return value;
  const read = new Set<string>();
  visited.set(value, read);
  return new Proxy(value, {
    get(target, key, receiver) {
      const property = Reflect.get(target, key, receiver) as unknown;
      if (typeof key !== 'string' || !Object.hasOwn(target, key)) return property;
      read.add(key);
      return recordingView(property, visited);
    },
    set: () => false,
    deleteProperty: () => false,
  });
}

function unknownFields(value: unknown, path: string, visited: Map<object, Set<string>>): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => unknownFields(item, `${path}/${index}`, visited));
  const read = visited.get(value);
  // An object the validator never reached lies below an unknown field, which is reported already.
  if (read === undefined) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const childPath = `${path}/${key}`;
    return read.has(key) ? unknownFields(child, childPath, visited) : [childPath];
  });
}
