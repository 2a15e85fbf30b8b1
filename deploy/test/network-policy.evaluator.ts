import type { K8sObject } from './kubectl-kustomize.renderer.js';

/** A pod as NetworkPolicies see it: its labels and the ports its containers declare. */
export interface PodView {
  labels: Record<string, string>;
  ports: { name?: string; containerPort: number; protocol?: string }[];
}

/** One end of a connection: a pod in the namespace, or anything outside the cluster. */
export type Endpoint = { pod: PodView } | 'external';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}

interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: ('Ingress' | 'Egress')[];
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

/**
 * Whether the NetworkPolicies among `objects` (all in one namespace) let `from` open a
 * connection to `to` on `port`: the source's egress and the destination's ingress must both
 * allow it, where a pod no policy selects for a direction is open in that direction.
 *
 * Simplifications, on the safe side for the questions the manifest test asks: an `ipBlock` peer
 * matches only external endpoints (whatever its CIDR), a `namespaceSelector` peer matches pods
 * only when it is empty (any namespace, hence ours) and never external endpoints, and a named
 * port matches the destination pod's container port of that name.
 */
export function isConnectionAllowed(objects: readonly K8sObject[], from: Endpoint, to: Endpoint, port: number, protocol = 'TCP'): boolean {
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy').map((object) => object.spec as NetworkPolicySpec);
  const destinationPod = to === 'external' ? undefined : to.pod;
  const egress = from === 'external' || allowedBy(policies, 'Egress', from.pod, to, port, protocol, destinationPod);
  const ingress = to === 'external' || allowedBy(policies, 'Ingress', to.pod, from, port, protocol, destinationPod);
  return egress && ingress;
}

/** Whether some NetworkPolicy isolates `pod` in `direction` (so that only allowed traffic flows). */
export function isIsolated(objects: readonly K8sObject[], pod: PodView, direction: 'Ingress' | 'Egress'): boolean {
  return objects
    .filter((object) => object.kind === 'NetworkPolicy')
    .some((object) => {
      const spec = object.spec as NetworkPolicySpec;
      return selects(spec.podSelector, pod.labels) && policyTypes(spec).includes(direction);
    });
}

function allowedBy(policies: NetworkPolicySpec[], direction: 'Ingress' | 'Egress', subject: PodView, peer: Endpoint, port: number, protocol: string, destinationPod: PodView | undefined): boolean {
  const applicable = policies.filter((policy) => selects(policy.podSelector, subject.labels) && policyTypes(policy).includes(direction));
  if (applicable.length === 0) return true;
  return applicable.some((policy) =>
    ((direction === 'Ingress' ? policy.ingress : policy.egress) ?? []).some(
      (rule) => peersMatch(direction === 'Ingress' ? rule.from : rule.to, peer) && portsMatch(rule.ports, port, protocol, destinationPod),
    ),
  );
}

function policyTypes(policy: NetworkPolicySpec): ('Ingress' | 'Egress')[] {
  return policy.policyTypes ?? (policy.egress !== undefined ? ['Ingress', 'Egress'] : ['Ingress']);
}

function peersMatch(peers: PolicyPeer[] | undefined, peer: Endpoint): boolean {
  if (peers === undefined || peers.length === 0) return true;
  return peers.some((candidate) => {
    if (candidate.ipBlock !== undefined) return peer === 'external';
    if (peer === 'external') return false;
    if (candidate.namespaceSelector !== undefined && !isEmptySelector(candidate.namespaceSelector)) return false;
    return candidate.podSelector === undefined || selects(candidate.podSelector, peer.pod.labels);
  });
}

function portsMatch(ports: PolicyPort[] | undefined, port: number, protocol: string, destinationPod: PodView | undefined): boolean {
  if (ports === undefined || ports.length === 0) return true;
  return ports.some((candidate) => {
    if ((candidate.protocol ?? 'TCP') !== protocol) return false;
    if (candidate.port === undefined) return true;
    if (typeof candidate.port === 'number') return port >= candidate.port && port <= (candidate.endPort ?? candidate.port);
    return destinationPod?.ports.some((declared) => declared.name === candidate.port && declared.containerPort === port && (declared.protocol ?? 'TCP') === protocol) ?? false;
  });
}

function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/** Whether a Kubernetes label selector selects a set of labels. */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    if (expression.operator === 'In' && (value === undefined || !values.includes(value))) return false;
    if (expression.operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (expression.operator === 'Exists' && value === undefined) return false;
    if (expression.operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}
