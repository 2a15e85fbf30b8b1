import { execFile } from 'node:child_process';
import type { Container } from '../kubectl-kustomize.renderer.js';

/** The tag `npm run images` gives the process images (IMAGE_TAG, `dev` by default: the dev overlay's). */
export const IMAGE_TAG = process.env.IMAGE_TAG ?? 'dev';

/** The local image of a process, as its manifest names it (`inkwell/<process>`) with {@link IMAGE_TAG}. */
export function processImage(name: string): string {
  return `inkwell/${name}:${IMAGE_TAG}`;
}

/** The result of one docker CLI call. */
export interface DockerResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the docker CLI with `args` (at most `timeoutMs`, 60 s by default) and returns its status and output, failed or not. */
export function dockerResult(args: readonly string[], timeoutMs = 60_000): Promise<DockerResult> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') return reject(error);
      resolve({ status: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Runs the docker CLI with `args` and resolves its stdout; rejects with its stderr when it fails. */
export async function docker(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await dockerResult(args, timeoutMs);
  if (result.status !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.status}): ${result.stderr.trim()}`);
  return result.stdout;
}

/** What the engine says of a local image: its size in bytes and the user it runs as. */
export async function inspectImage(image: string): Promise<{ sizeBytes: number; user: string }> {
  const [size, user] = (await docker(['image', 'inspect', '--format', '{{.Size}} {{.Config.User}}', image])).trim().split(' ');
  return { sizeBytes: Number(size), user: user ?? '' };
}

/** Whether the engine holds `image`. */
export async function imageExists(image: string): Promise<boolean> {
  return (await dockerResult(['image', 'inspect', image])).status === 0;
}

/** Removes every container with the label `key=value`, running or not (clean-up after a test). */
export async function removeContainers(key: string, value: string): Promise<void> {
  const ids = (await docker(['ps', '--all', '--quiet', '--filter', `label=${key}=${value}`])).split('\n').filter((id) => id !== '');
  if (ids.length > 0) await docker(['rm', '--force', ...ids]);
}

/** The parts of a pod template that say how its container runs. */
export interface PodTemplate {
  podSpec: Record<string, unknown>;
  container: Container;
}

interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[] };
}

/**
 * The `docker run` arguments (up to the image) that run a container the way its Kubernetes pod
 * template does: the pod's and container's user and group, a read-only root filesystem when the
 * container has one, a tmpfs (with the volume's size limit) for each emptyDir it mounts and no
 * other writable path, capabilities dropped, no privilege escalation, its memory limit. The
 * container shares the host's network, so it reaches the test stack on loopback; `envNames` are
 * passed through from the docker CLI's own environment, so values never show on a command line.
 */
export function dockerRunArgs(template: PodTemplate, options: { containerName: string; label: string; envNames: readonly string[] }): string[] {
  const pod = (template.podSpec.securityContext ?? {}) as SecurityContext;
  const own = (template.container.securityContext ?? {}) as SecurityContext;
  const user = own.runAsUser ?? pod.runAsUser;
  const group = own.runAsGroup ?? pod.runAsGroup;
  const args = ['run', '--rm', '--name', options.containerName, '--label', options.label, '--network', 'host'];
  if (user !== undefined) args.push('--user', group === undefined ? String(user) : `${user}:${group}`);
  if (own.readOnlyRootFilesystem === true) args.push('--read-only');
  if (own.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
  for (const capability of own.capabilities?.drop ?? []) args.push('--cap-drop', capability);
  const memory = (template.container.resources as { limits?: { memory?: string } } | undefined)?.limits?.memory;
  if (memory !== undefined) args.push('--memory', kubernetesQuantityToDocker(memory));
  const volumes = (template.podSpec.volumes ?? []) as { name: string; emptyDir?: { sizeLimit?: string } }[];
  for (const mount of (template.container.volumeMounts ?? []) as { name: string; mountPath: string }[]) {
    const volume = volumes.find((candidate) => candidate.name === mount.name);
    if (volume?.emptyDir === undefined) throw new Error(`volume ${mount.name} is not an emptyDir: the image test cannot mount it`);
    const size = volume.emptyDir.sizeLimit;
    args.push('--tmpfs', size === undefined ? mount.mountPath : `${mount.mountPath}:size=${kubernetesQuantityToDocker(size)}`);
  }
  for (const name of options.envNames) args.push('--env', name);
  return args;
}

/** `384Mi` → `384m`, `1Gi` → `1g` (docker's binary units); other quantities as they are. */
function kubernetesQuantityToDocker(quantity: string): string {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  return match === null ? quantity : `${match[1]}${(match[2] as string)[0]!.toLowerCase()}`;
}
