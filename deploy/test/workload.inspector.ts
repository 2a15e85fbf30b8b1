import { podSpecOf, type Container, type K8sObject } from './kubectl-kustomize.renderer.js';
import { selects, type PodView } from './network-policy.evaluator.js';

/** Kinds that run pods and that the pod rules of deploy/k8s/README.md apply to. */
export const POD_WORKLOAD_KINDS = ['Deployment', 'StatefulSet'] as const;

/** Kinds without a namespace (kustomize leaves them cluster-wide). */
export const CLUSTER_SCOPED_KINDS = new Set(['PriorityClass', 'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

/**
 * Annotation by which a pod template says why its container needs a writable root filesystem
 * (a third-party image that writes into itself); every other container must mount it read-only.
 */
export const WRITABLE_ROOT_ANNOTATION = 'inkwell.dev/writable-root-filesystem';

/** A Deployment or StatefulSet as rendered, with what the pod rules look at. */
export interface PodWorkload {
  object: K8sObject;
  podSpec: Record<string, unknown>;
  podLabels: Record<string, string>;
  podAnnotations: Record<string, string>;
  containers: Container[];
}

/** Every Deployment and StatefulSet among `objects`. */
export function podWorkloads(objects: readonly K8sObject[]): PodWorkload[] {
  return objects
    .filter((object) => (POD_WORKLOAD_KINDS as readonly string[]).includes(object.kind))
    .map((object) => {
      const podSpec = podSpecOf(object) as Record<string, unknown>;
      const metadata = (object.spec as { template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } } }).template.metadata ?? {};
      return { object, podSpec, podLabels: metadata.labels ?? {}, podAnnotations: metadata.annotations ?? {}, containers: podSpec.containers as Container[] };
    });
}

/** The pods of a workload as NetworkPolicies see them (labels, every container's ports). */
export function workloadPodView(workload: PodWorkload): PodView {
  return { labels: workload.podLabels, ports: workload.containers.flatMap((container) => (container.ports as PodView['ports'] | undefined) ?? []) };
}

/** A resource quantity as a number: CPU in cores, memory in bytes. */
export function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(value));
  if (match === null) throw new Error(`unsupported quantity ${value}`);
  const factors: Record<string, number> = { '': 1, m: 0.001, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(match[1]) * (factors[match[2] ?? ''] as number);
}

/**
 * What a pod workload breaks of the pod rules (deploy/README.md, "What every pod gets"), one line
 * each: probes (readiness and liveness; startup too), CPU and memory requests ≤ limits,
 * non-root, no privilege escalation, all capabilities dropped, seccomp RuntimeDefault, a
 * read-only root filesystem unless {@link WRITABLE_ROOT_ANNOTATION} says why not, no service
 * account token, a priority class that `objects` define; a Deployment also spreads its pods
 * across zones and nodes with a selector of its own pods.
 */
export function podRuleProblems(objects: readonly K8sObject[], workload: PodWorkload): string[] {
  const where = `${workload.object.kind} ${workload.object.metadata.name}`;
  const problems: string[] = [];
  const pod = (workload.podSpec.securityContext ?? {}) as Record<string, unknown>;
  if (workload.podSpec.automountServiceAccountToken !== false) problems.push(`${where}: mounts a service account token`);
  const priorityClasses = new Set(objects.filter((object) => object.kind === 'PriorityClass').map((object) => object.metadata.name));
  const priority = workload.podSpec.priorityClassName as string | undefined;
  if (priority === undefined || !priorityClasses.has(priority)) problems.push(`${where}: priorityClassName ${priority ?? '(none)'} is not a PriorityClass of the overlay`);
  for (const container of workload.containers) {
    const at = `${where} container ${container.name}`;
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) if (container[probe] === undefined) problems.push(`${at}: no ${probe}`);
    const resources = container.resources as { requests?: Record<string, string>; limits?: Record<string, string> } | undefined;
    for (const resource of ['cpu', 'memory']) {
      const request = resources?.requests?.[resource];
      const limit = resources?.limits?.[resource];
      if (request === undefined || limit === undefined) problems.push(`${at}: ${resource} request and limit must both be set`);
      else if (quantity(limit) < quantity(request)) problems.push(`${at}: ${resource} limit ${limit} is below its request ${request}`);
    }
    const own = (container.securityContext ?? {}) as Record<string, unknown>;
    if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) problems.push(`${at}: not runAsNonRoot`);
    if (own.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (!((own.capabilities as { drop?: string[] } | undefined)?.drop ?? []).includes('ALL')) problems.push(`${at}: capabilities not dropped`);
    if (((own.capabilities as { add?: string[] } | undefined)?.add ?? []).length > 0) problems.push(`${at}: adds capabilities`);
    if (((own.seccompProfile ?? pod.seccompProfile) as { type?: string } | undefined)?.type !== 'RuntimeDefault') problems.push(`${at}: seccomp profile is not RuntimeDefault`);
    const writableReason = workload.podAnnotations[WRITABLE_ROOT_ANNOTATION];
    if (own.readOnlyRootFilesystem !== true && (writableReason === undefined || writableReason.trim() === '')) problems.push(`${at}: root filesystem is writable without a ${WRITABLE_ROOT_ANNOTATION} reason`);
  }
  if (workload.object.kind === 'Deployment') {
    type Spread = { topologyKey: string; labelSelector?: { matchLabels?: Record<string, string> } };
    const spreads = (workload.podSpec.topologySpreadConstraints as Spread[] | undefined) ?? [];
    for (const key of ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']) {
      const spread = spreads.find((candidate) => candidate.topologyKey === key);
      if (spread === undefined) problems.push(`${where}: no topology spread across ${key}`);
      else if (spread.labelSelector === undefined || !selects(spread.labelSelector, workload.podLabels)) problems.push(`${where}: the ${key} spread does not select its own pods`);
    }
  }
  return problems;
}
