import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as `kubectl kustomize` renders it. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** A container of a pod template in a rendered object. */
export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

/** Options of {@link renderKustomization}. */
export interface RenderOptions {
  /** The kubectl executable (a name looked up on PATH, or a path); `kubectl` unless set. */
  kubectl?: string;
}

/**
 * Renders a kustomization folder with the real kustomize, `kubectl kustomize <dir>` (kustomize
 * v5 is built into kubectl ≥ 1.27), exactly as `kubectl apply -k` would, and returns the objects
 * in order: generated ConfigMaps carry their content-hash suffix and every reference to them is
 * rewritten. Throws when kubectl is missing (saying so) or when kustomize rejects the folder
 * (with kustomize's own message).
 */
export function renderKustomization(dir: string, options: RenderOptions = {}): K8sObject[] {
  const kubectl = options.kubectl ?? 'kubectl';
  let output: string;
  try {
    output = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(`${kubectl} not found: the manifest tests render deploy/k8s with \`kubectl kustomize\` (kubectl ≥ 1.27, kustomize v5); install kubectl and put it on PATH`, { cause: error });
    }
    throw new Error(`\`${kubectl} kustomize ${dir}\` failed: ${failure.stderr?.trim() || failure.message}`, { cause: error });
  }
  return parseAllDocuments(output)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed invalid YAML: ${document.errors[0]?.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** The pod spec of a workload (Deployment, StatefulSet, DaemonSet, Job), or undefined. */
export function podSpecOf(object: K8sObject): Record<string, unknown> | undefined {
  const template = (object.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template;
  return template?.spec;
}

/** Splits `registry/name:tag` (or `name@digest`) into name and tag. */
export function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { name: image.slice(0, at), digest: image.slice(at + 1) };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { name: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { name: image };
}
