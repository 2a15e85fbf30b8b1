import { join } from 'node:path';
import type { KeyRing } from '@inkwell/testing';
import { podSpecOf, renderKustomization, type Container, type K8sObject } from '../../../../deploy/test/kubectl-kustomize.renderer.js';
import { containerEnvironment, find, INTERNAL_AUTH_SECRET_NAME } from '../../../../deploy/test/manifest.inspector.js';
import { DEPLOYED_PROCESSES, REPO_ROOT } from '../../../../deploy/test/process.catalog.js';
import { LOCAL_STORE_IMAGES } from '../local-images.js';

/** The Kubernetes overlay whose configuration the container system runs: the one source for both. */
export const OVERLAY = 'deploy/k8s/overlays/dev';

/** Every container of the system carries this label (how `down` finds them). */
export const SYSTEM_LABEL = 'dev.inkwell.system=containers';

/** The system's own private Docker network. */
export const NETWORK = 'inkwell-system';

/** A file the container reads, bind-mounted read-only (a ConfigMap volume). */
export interface MountedFile {
  readonly path: string;
  readonly content: string;
}

/** One container of the system, as `docker run` needs it, derived from a rendered workload. */
export interface ContainerSpec {
  /** The workload's name (`users`, `postgres`…); the container is `inkwell-<name>`. */
  readonly name: string;
  /** `store` (a StatefulSet of components/dev-stores) or `process` (an Inkwell Deployment). */
  readonly role: 'store' | 'process';
  readonly image: string;
  /** DNS names on the network: the Service name, and for a StatefulSet pod `<pod>.<service>`. */
  readonly aliases: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  /** `uid:gid` of the pod's securityContext. */
  readonly user?: string;
  readonly readOnlyRoot: boolean;
  /** emptyDir mounts: a tmpfs each. */
  readonly tmpfs: readonly string[];
  /** volumeClaimTemplates mounts: a Docker volume each (`inkwell-system-<name>-<volume>`), by mount path. */
  readonly volumes: Readonly<Record<string, string>>;
  /** ConfigMap volume mounts: a folder of the rendered files each, by mount path. */
  readonly configFiles: Readonly<Record<string, readonly MountedFile[]>>;
  /** The container's memory limit (`resources.limits.memory`, Kubernetes quantity). */
  readonly memory?: string;
  /** Container ports published on 127.0.0.1, so that the tests on this machine reach it (nothing else is). */
  readonly published: readonly number[];
}

/** Decodes the `data` of a rendered Secret. */
function secretData(object: K8sObject): Record<string, string> {
  const data = (object.data as Record<string, string> | undefined) ?? {};
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

/**
 * The Secret inkwell-internal-auth as deploy/scripts/internal-auth-secret.sh makes it (`<process>-private-key`,
 * `<process>-key-id`, `trusted-keys`), from the key ring kept for the container system.
 */
function internalAuthSecret(keys: KeyRing): Record<string, string> {
  const values: Record<string, string> = {};
  for (const process of DEPLOYED_PROCESSES) {
    const env = keys.env(process.name);
    values[`${process.name}-private-key`] = env.INTERNAL_AUTH_PRIVATE_KEY ?? '';
    values[`${process.name}-key-id`] = env.INTERNAL_AUTH_KEY_ID ?? '';
    values['trusted-keys'] = env.INTERNAL_AUTH_TRUSTED_KEYS ?? '';
  }
  return values;
}

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } };
type VolumeMount = { name: string; mountPath: string };
type Volume = { name: string; emptyDir?: unknown; configMap?: { name: string } };

/**
 * A store container's environment: `envFrom` Secrets and ConfigMaps, `env` values, Secret and
 * ConfigMap keys, `metadata.name` as the pod's name, and `$(VAR)` references, as the kubelet
 * resolves them.
 */
function storeEnvironment(objects: readonly K8sObject[], container: Container, secrets: Record<string, Record<string, string>>, podName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of (container.envFrom as { configMapRef?: { name: string }; secretRef?: { name: string } }[] | undefined) ?? []) {
    if (source.secretRef !== undefined) Object.assign(env, secrets[source.secretRef.name]);
    if (source.configMapRef !== undefined) Object.assign(env, find(objects, 'ConfigMap', source.configMapRef.name).data as Record<string, string>);
  }
  for (const variable of (container.env as EnvVar[] | undefined) ?? []) {
    const from = variable.valueFrom;
    let value = variable.value;
    if (from?.secretKeyRef !== undefined) value = secrets[from.secretKeyRef.name]?.[from.secretKeyRef.key];
    if (from?.configMapKeyRef !== undefined) value = (find(objects, 'ConfigMap', from.configMapKeyRef.name).data as Record<string, string>)[from.configMapKeyRef.key];
    if (from?.fieldRef?.fieldPath === 'metadata.name') value = podName;
    if (value === undefined) throw new Error(`${container.name}: cannot resolve the variable ${variable.name}`);
    env[variable.name] = value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
  }
  return env;
}

/** What `docker run` needs of a rendered workload's pod: user, root filesystem, mounts, memory. */
function podRuntime(workload: K8sObject, container: Container, objects: readonly K8sObject[]): Pick<ContainerSpec, 'user' | 'readOnlyRoot' | 'tmpfs' | 'volumes' | 'configFiles' | 'memory'> {
  const pod = podSpecOf(workload) as { securityContext?: { runAsUser?: number; runAsGroup?: number }; volumes?: Volume[] };
  const claims = new Set(((workload.spec as { volumeClaimTemplates?: { metadata: { name: string } }[] }).volumeClaimTemplates ?? []).map((claim) => claim.metadata.name));
  const volumes = new Map((pod.volumes ?? []).map((volume) => [volume.name, volume]));
  const security = container.securityContext as { readOnlyRootFilesystem?: boolean } | undefined;
  const tmpfs: string[] = [];
  const dockerVolumes: Record<string, string> = {};
  const configFiles: Record<string, MountedFile[]> = {};
  for (const mount of (container.volumeMounts as VolumeMount[] | undefined) ?? []) {
    const volume = volumes.get(mount.name);
    if (claims.has(mount.name)) dockerVolumes[mount.mountPath] = `${NETWORK}-${workload.metadata.name}-${mount.name}`;
    else if (volume?.emptyDir !== undefined) tmpfs.push(mount.mountPath);
    else if (volume?.configMap !== undefined) {
      const data = find(objects, 'ConfigMap', volume.configMap.name).data as Record<string, string>;
      configFiles[mount.mountPath] = Object.entries(data).map(([path, content]) => ({ path, content }));
    } else throw new Error(`${workload.metadata.name}: the volume ${mount.name} is neither a claim, an emptyDir nor a ConfigMap`);
  }
  const user = pod.securityContext?.runAsUser;
  const memory = (container.resources as { limits?: { memory?: string } } | undefined)?.limits?.memory;
  return {
    ...(user === undefined ? {} : { user: `${user}:${pod.securityContext?.runAsGroup ?? user}` }),
    readOnlyRoot: security?.readOnlyRootFilesystem === true,
    tmpfs,
    volumes: dockerVolumes,
    configFiles,
    ...(memory === undefined ? {} : { memory }),
  };
}

/** The local image of a dev-stores workload (the overlay names the upstream one, which is never pulled here). */
function localStoreImage(name: string): string {
  const image = (LOCAL_STORE_IMAGES as Record<string, string>)[name];
  if (image === undefined) throw new Error(`no local image for the store ${name} (tools/stack/src/local-images.ts)`);
  return image;
}

/** Options of {@link systemSpec}. */
export interface SystemSpecOptions {
  /** The key ring of the internal-call keys (the Secret inkwell-internal-auth, which no overlay holds). */
  readonly keys: KeyRing;
  /** The origin the gateway is published on (PUBLIC_BASE_URL of the processes that read it). */
  readonly publicBaseUrl: string;
  /** Tag of the process images instead of the overlay's (`dev`). */
  readonly imageTag?: string;
}

/**
 * Every container of the system, from `kubectl kustomize deploy/k8s/overlays/dev`: the stores of
 * components/dev-stores (on the local store images) and the Inkwell processes (the overlay's
 * images), each with the environment its pod gets there: its ConfigMaps, the Secrets
 * inkwell-stores, inkwell-webhooks and postgres-credentials as the overlay generates them, and
 * inkwell-internal-auth from `keys`. Only PUBLIC_BASE_URL is replaced (by the published origin).
 */
export function systemSpec(options: SystemSpecOptions): ContainerSpec[] {
  const objects = renderKustomization(join(REPO_ROOT, OVERLAY));
  const secrets: Record<string, Record<string, string>> = Object.fromEntries(objects.filter((object) => object.kind === 'Secret').map((object) => [object.metadata.name, secretData(object)]));
  secrets[INTERNAL_AUTH_SECRET_NAME] = internalAuthSecret(options.keys);

  const stores = objects
    .filter((object) => object.kind === 'StatefulSet')
    .map((statefulSet): ContainerSpec => {
      const name = statefulSet.metadata.name;
      const container = (podSpecOf(statefulSet)?.containers as Container[])[0] as Container;
      const service = (statefulSet.spec as { serviceName?: string }).serviceName ?? name;
      const podName = `${name}-0`;
      return {
        name,
        role: 'store',
        image: localStoreImage(name),
        aliases: [service, `${podName}.${service}`],
        env: storeEnvironment(objects, container, secrets, podName),
        args: (container.args as string[] | undefined) ?? [],
        ...podRuntime(statefulSet, container, objects),
        published: { postgres: [5432], opensearch: [9200] }[name] ?? [],
      };
    });

  const processes = DEPLOYED_PROCESSES.map((process): ContainerSpec => {
    const deployment = find(objects, 'Deployment', process.name);
    const container = (podSpecOf(deployment)?.containers as Container[]).find((candidate) => candidate.name === process.name) as Container;
    const { env } = containerEnvironment(objects, container, secrets);
    if (env.PUBLIC_BASE_URL !== undefined) env.PUBLIC_BASE_URL = options.publicBaseUrl;
    const image = options.imageTag === undefined ? container.image : `${container.image.replace(/:[^:/]+$/, '')}:${options.imageTag}`;
    return {
      name: process.name,
      role: 'process',
      image,
      aliases: [process.name],
      env,
      args: [],
      ...podRuntime(deployment, container, objects),
      // The gateway's API; the users service's gRPC for the test helpers that register users as the gateway does.
      published: process.name === 'gateway' ? [process.port] : process.name === 'users' ? [process.port] : [],
    };
  });
  return [...stores, ...processes];
}
