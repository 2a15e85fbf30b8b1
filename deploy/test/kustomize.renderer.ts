import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** A Kubernetes object as written in a manifest. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The objects a kustomization renders to, in order. */
export interface Rendered {
  objects: K8sObject[];
}

interface PatchTarget {
  kind?: string;
  name?: string;
  labelSelector?: string;
}

interface Kustomization {
  apiVersion?: string;
  kind?: 'Kustomization' | 'Component';
  namespace?: string;
  resources?: string[];
  components?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replicas?: { name: string; count: number }[];
  configMapGenerator?: { name: string; envs?: string[]; literals?: string[]; behavior?: 'create' | 'merge' | 'replace' }[];
  patches?: { path?: string; patch?: string; target?: PatchTarget }[];
}

type JsonPatch = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown }[];

const SUPPORTED_FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'components', 'images', 'replicas', 'configMapGenerator', 'patches']);
const CLUSTER_SCOPED_KINDS = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass']);

/**
 * Renders a kustomization folder the way `kustomize build` does, for the subset of kustomize the
 * manifests under deploy/k8s use: resources (files and folders), components, namespace, images,
 * replicas, configMapGenerator (envs, literals; create/merge/replace) and patches (strategic
 * merge, or JSON 6902 with a target of kind, name and `k=v` label selectors).
 *
 * Differences from kustomize, on purpose: generated ConfigMaps keep their plain name (kustomize
 * appends a content hash and rewrites every reference to it, so references resolve either way).
 * Any other kustomization field, a missing file or a patch that matches nothing throws, so that
 * a manifest change this renderer does not understand fails the test instead of being ignored.
 */
export function renderKustomization(dir: string): Rendered {
  return { objects: build(resolve(dir), 'Kustomization') };
}

function build(dir: string, expectedKind: 'Kustomization' | 'Component', accumulated: K8sObject[] = []): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir} has no kustomization.yaml`);
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization;
  const unsupported = Object.keys(kustomization).filter((field) => !SUPPORTED_FIELDS.has(field));
  if (unsupported.length > 0) throw new Error(`${file}: ${unsupported.join(', ')} not supported by deploy/test/kustomize.renderer.ts; extend it`);
  if ((kustomization.kind ?? 'Kustomization') !== expectedKind) throw new Error(`${file} is a ${kustomization.kind ?? 'Kustomization'}, expected a ${expectedKind}`);

  const objects = accumulated;
  for (const entry of kustomization.resources ?? []) {
    const path = join(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) objects.push(...build(path, 'Kustomization'));
    else objects.push(...readObjects(path));
  }
  for (const entry of kustomization.components ?? []) {
    const path = join(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: component ${entry} does not exist`);
    build(path, 'Component', objects);
  }
  for (const generator of kustomization.configMapGenerator ?? []) generateConfigMap(dir, file, generator, objects);
  for (const patch of kustomization.patches ?? []) applyPatch(dir, file, patch, objects);
  if (kustomization.namespace !== undefined) {
    for (const object of objects) if (!CLUSTER_SCOPED_KINDS.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  for (const image of kustomization.images ?? []) {
    let used = false;
    for (const container of podContainers(objects)) {
      const { name, tag } = splitImage(container.image);
      if (name !== image.name) continue;
      used = true;
      const newName = image.newName ?? name;
      container.image = image.digest !== undefined ? `${newName}@${image.digest}` : `${newName}${image.newTag !== undefined ? `:${image.newTag}` : tag !== undefined ? `:${tag}` : ''}`;
    }
    if (!used) throw new Error(`${file}: image ${image.name} is used by no container`);
  }
  for (const replicas of kustomization.replicas ?? []) {
    const target = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === replicas.name);
    if (target === undefined) throw new Error(`${file}: replicas for ${replicas.name}, which is no Deployment`);
    (target.spec as Record<string, unknown>).replicas = replicas.count;
  }
  return objects;
}

function readObjects(path: string): K8sObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

function generateConfigMap(dir: string, file: string, generator: NonNullable<Kustomization['configMapGenerator']>[number], objects: K8sObject[]): void {
  const data: Record<string, string> = {};
  for (const envFile of generator.envs ?? []) {
    const path = join(dir, envFile);
    if (!existsSync(path)) throw new Error(`${file}: env file ${envFile} does not exist`);
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      const [key, value] = splitAssignment(trimmed, path);
      data[key] = value;
    }
  }
  for (const literal of generator.literals ?? []) {
    const [key, value] = splitAssignment(literal, file);
    data[key] = value;
  }
  const behavior = generator.behavior ?? 'create';
  const existing = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === generator.name);
  if (behavior === 'create') {
    if (existing !== undefined) throw new Error(`${file}: ConfigMap ${generator.name} already exists (use behavior: merge)`);
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data });
    return;
  }
  if (existing === undefined) throw new Error(`${file}: ConfigMap ${generator.name} to ${behavior} does not exist`);
  existing.data = behavior === 'merge' ? { ...(existing.data as Record<string, string>), ...data } : data;
}

function splitAssignment(text: string, where: string): [string, string] {
  const index = text.indexOf('=');
  if (index <= 0) throw new Error(`${where}: expected KEY=value, got ${text}`);
  return [text.slice(0, index), text.slice(index + 1)];
}

function applyPatch(dir: string, file: string, patch: NonNullable<Kustomization['patches']>[number], objects: K8sObject[]): void {
  let text = patch.patch;
  if (patch.path !== undefined) {
    const path = join(dir, patch.path);
    if (!existsSync(path)) throw new Error(`${file}: patch ${patch.path} does not exist`);
    text = readFileSync(path, 'utf8');
  }
  if (text === undefined) throw new Error(`${file}: a patch needs path or patch`);
  const body = parse(text) as unknown;
  if (Array.isArray(body)) {
    if (patch.target === undefined) throw new Error(`${file}: a JSON patch needs a target`);
    const targets = objects.filter((object) => matchesTarget(object, patch.target as PatchTarget));
    if (targets.length === 0) throw new Error(`${file}: patch ${patch.path ?? ''} matches no object`);
    for (const target of targets) applyJsonPatch(target, body as JsonPatch, file);
    return;
  }
  const smp = body as K8sObject;
  const target = patch.target ?? { kind: smp.kind, name: smp.metadata.name };
  const targets = objects.filter((object) => matchesTarget(object, target));
  if (targets.length === 0) throw new Error(`${file}: patch ${patch.path ?? ''} matches no object`);
  for (const object of targets) {
    const { metadata: _ignored, ...rest } = smp;
    strategicMerge(object, rest);
  }
}

function matchesTarget(object: K8sObject, target: PatchTarget): boolean {
  if (target.kind !== undefined && object.kind !== target.kind) return false;
  if (target.name !== undefined && object.metadata.name !== target.name) return false;
  if (target.labelSelector !== undefined) {
    for (const requirement of target.labelSelector.split(',')) {
      const match = /^\s*([\w./-]+)\s*=\s*([\w.-]+)\s*$/.exec(requirement);
      if (match === null) throw new Error(`label selector ${target.labelSelector}: only k=v requirements are supported`);
      if (object.metadata.labels?.[match[1] as string] !== match[2]) return false;
    }
  }
  return true;
}

function applyJsonPatch(object: K8sObject, operations: JsonPatch, file: string): void {
  for (const operation of operations) {
    const segments = operation.path.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = segments.pop();
    if (last === undefined) throw new Error(`${file}: JSON patch path ${operation.path} is the root`);
    let parent: unknown = object;
    for (const segment of segments) {
      parent = (parent as Record<string, unknown>)?.[segment];
      if (parent === undefined || parent === null) throw new Error(`${file}: ${operation.path} does not exist in ${object.kind} ${object.metadata.name}`);
    }
    const container = parent as Record<string, unknown> & unknown[];
    if (operation.op === 'add' && Array.isArray(container)) {
      if (last === '-') container.push(operation.value);
      else container.splice(Number(last), 0, operation.value);
    } else if (operation.op === 'add') {
      container[last] = operation.value;
    } else {
      if (!(last in container)) throw new Error(`${file}: ${operation.op} ${operation.path}: no such field in ${object.kind} ${object.metadata.name}`);
      if (operation.op === 'replace') container[last] = operation.value;
      else if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    }
  }
}

/** Strategic merge as kubectl does it for the fields we patch: maps merge, lists of named objects merge by name. */
function strategicMerge(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`strategic merge directive ${key} is not supported`);
    const current = target[key];
    if (value === null) delete target[key];
    else if (isNamedList(value) && isNamedList(current)) {
      for (const item of value) {
        const existing = current.find((candidate) => candidate.name === item.name);
        if (existing === undefined) current.push(item);
        else strategicMerge(existing, item);
      }
    } else if (isPlainObject(value) && isPlainObject(current)) strategicMerge(current, value);
    else target[key] = value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNamedList(value: unknown): value is (Record<string, unknown> & { name: unknown })[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => isPlainObject(item) && typeof item.name === 'string');
}

/** A container of a pod template in a rendered object. */
export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

/** Every container (and init container) of every pod template among `objects`. */
export function podContainers(objects: readonly K8sObject[]): Container[] {
  return objects.flatMap((object) => {
    const podSpec = podSpecOf(object);
    if (podSpec === undefined) return [];
    return [...((podSpec.initContainers as Container[] | undefined) ?? []), ...((podSpec.containers as Container[] | undefined) ?? [])];
  });
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
