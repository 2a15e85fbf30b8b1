import type { K8sObject } from './kubectl-kustomize.renderer.js';

/**
 * Hand-kept field lists of the custom resources whose schemas no npm package offers for
 * @kubernetes-models/validate 4 (Node 20): Strimzi's `kafka.strimzi.io/v1beta2` (Strimzi 0.45
 * API reference) and the OpenSearch operator's `opensearch.opster.io/v1` (operator 2.7 API
 * reference). Only the fields deploy/k8s uses, and their neighbours an edit would plausibly
 * reach for, are listed: a field outside the list fails, as a typo would be refused by the
 * operator's CRD schema. When an operator's API version changes, re-check these lists against its
 * reference before bumping the apiVersion in deploy/k8s and here.
 */
type Shape = 'string' | 'integer' | 'boolean' | 'quantity' | 'scalar-map' | 'string-map' | { readonly fields: Readonly<Record<string, Shape>>; readonly required?: readonly string[] } | { readonly items: Shape };

const resources: Shape = { fields: { requests: 'string-map', limits: 'string-map' } };
const labelsAndAnnotations: Shape = { fields: { name: 'string', namespace: 'string', labels: 'string-map', annotations: 'string-map' }, required: ['name'] };

/** A custom resource of the listed kind: apiVersion, kind, metadata (a name at least) and `spec`, all required. */
function customResource(spec: Shape): Shape {
  return { fields: { apiVersion: 'string', kind: 'string', metadata: labelsAndAnnotations, spec }, required: ['apiVersion', 'kind', 'metadata', 'spec'] };
}

/** The checked kinds, by `apiVersion kind`. */
export const OPERATOR_FIELD_LISTS: Readonly<Record<string, Shape>> = {
  'kafka.strimzi.io/v1beta2 Kafka': customResource({
    fields: {
      kafka: {
        fields: {
          version: 'string',
          metadataVersion: 'string',
          listeners: { items: { fields: { name: 'string', port: 'integer', type: 'string', tls: 'boolean', authentication: 'scalar-map' }, required: ['name', 'port', 'type', 'tls'] } },
          config: 'scalar-map',
          resources,
        },
        required: ['listeners'],
      },
      entityOperator: { fields: { topicOperator: { fields: { resources, watchedNamespace: 'string' } }, userOperator: { fields: { resources } } } },
      kafkaExporter: { fields: { groupRegex: 'string', topicRegex: 'string', resources } },
    },
    required: ['kafka'],
  }),
  'kafka.strimzi.io/v1beta2 KafkaNodePool': customResource({
    fields: {
      replicas: 'integer',
      roles: { items: 'string' },
      storage: { fields: { type: 'string', size: 'quantity', deleteClaim: 'boolean', class: 'string' }, required: ['type'] },
      resources,
    },
    required: ['replicas', 'roles', 'storage'],
  }),
  'kafka.strimzi.io/v1beta2 KafkaUser': customResource({ fields: { authentication: { fields: { type: 'string' }, required: ['type'] }, authorization: 'scalar-map', quotas: 'scalar-map' } }),
  'kafka.strimzi.io/v1beta2 KafkaTopic': customResource({ fields: { topicName: 'string', partitions: 'integer', replicas: 'integer', config: 'scalar-map' } }),
  'opensearch.opster.io/v1 OpenSearchCluster': customResource({
    fields: {
      general: { fields: { serviceName: 'string', version: 'string', httpPort: 'integer', setVMMaxMapCount: 'boolean' }, required: ['serviceName'] },
      security: {
        fields: {
          tls: { fields: { transport: { fields: { generate: 'boolean', perNode: 'boolean' } }, http: { fields: { generate: 'boolean' } } } },
          config: { fields: { adminCredentialsSecret: { fields: { name: 'string' } }, securityConfigSecret: { fields: { name: 'string' } } } },
        },
      },
      dashboards: { fields: { enable: 'boolean', version: 'string', replicas: 'integer' } },
      nodePools: { items: { fields: { component: 'string', replicas: 'integer', diskSize: 'quantity', roles: { items: 'string' }, resources, jvm: 'string' }, required: ['component', 'replicas', 'roles'] } },
    },
    required: ['general', 'nodePools'],
  }),
};

const QUANTITY = /^\d+(\.\d+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/;

/** Problems of `object` against its hand-kept field list, or undefined when there is no list for its kind. */
export function operatorFieldProblems(object: K8sObject): string[] | undefined {
  const shape = OPERATOR_FIELD_LISTS[`${object.apiVersion} ${object.kind}`];
  return shape === undefined ? undefined : check(object, shape, '');
}

function check(value: unknown, shape: Shape, path: string): string[] {
  const at = path || '/';
  if (shape === 'string') return typeof value === 'string' ? [] : [`${at} must be a string`];
  if (shape === 'integer') return Number.isInteger(value) ? [] : [`${at} must be an integer`];
  if (shape === 'boolean') return typeof value === 'boolean' ? [] : [`${at} must be a boolean`];
  if (shape === 'quantity') return typeof value === 'string' && QUANTITY.test(value) ? [] : [`${at} must be a quantity`];
  if (shape === 'scalar-map' || shape === 'string-map') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at} must be a map`];
    return Object.entries(value).flatMap(([key, entry]) => (shape === 'string-map' ? typeof entry === 'string' : ['string', 'number', 'boolean'].includes(typeof entry)) ? [] : [`${path}/${key} must be a ${shape === 'string-map' ? 'string' : 'scalar'}`]);
  }
  if ('items' in shape) return Array.isArray(value) ? value.flatMap((item, index) => check(item, shape.items, `${path}/${index}`)) : [`${at} must be a list`];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at} must be an object`];
  const record = value as Record<string, unknown>;
  return [
    ...(shape.required ?? []).filter((field) => record[field] === undefined).map((field) => `${path}/${field} is required`),
    ...Object.entries(record).flatMap(([key, child]) => {
      const fieldShape = shape.fields[key];
      return fieldShape === undefined ? [`${path}/${key} is not a field of the operator's API`] : check(child, fieldShape, `${path}/${key}`);
    }),
  ];
}
