import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GATEWAY_METRICS_PORT, repoRoot, SERVICES } from '@inkwell/testing';

/** One Node.js process of Inkwell as it is deployed: one Deployment, one Service, one image. */
export interface DeployedProcess {
  /** Name of its base folder, Deployment, Service and container. */
  name: string;
  /** Workspace folder, relative to the repository root (the image's WORKSPACE build arg). */
  workspace: string;
  /** `app.kubernetes.io/component` of its pods. */
  component: 'gateway' | 'grpc-service';
  /** The port it listens on by default, which its Service exposes. */
  port: number;
  /** Environment variables of its listening port and bind address. */
  portVariable: string;
  hostVariable: string;
  /** Environment variable through which other processes find it (gRPC services only). */
  addressVariable?: string;
  /** The port of its own /metrics endpoint, apart from its main port. */
  metricsPort?: number;
}

/** The repository root (the folder with turbo.json). */
export const REPO_ROOT = repoRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * Every process that runs in a deployment: the gateway and each service the system starts
 * (packages/testing SERVICES, the same list `npm run dev` and the end-to-end tests use).
 */
export const DEPLOYED_PROCESSES: readonly DeployedProcess[] = [
  { name: 'gateway', workspace: 'gateway', component: 'gateway', port: 8080, portVariable: 'GATEWAY_PORT', hostVariable: 'GATEWAY_HOST', metricsPort: GATEWAY_METRICS_PORT },
  ...SERVICES.map((service) => ({
    name: service.name,
    workspace: dirname(dirname(service.entry)),
    component: 'grpc-service' as const,
    port: service.defaultPort,
    portVariable: service.portVariable,
    hostVariable: service.portVariable.replace(/_PORT$/, '_HOST'),
    addressVariable: service.addressVariable,
    metricsPort: service.defaultMetricsPort,
  })),
];

/**
 * Variables every process reads outside its config.ts: `@inkwell/logging` takes its level from
 * LOG_LEVEL (packages/logging/src/index.ts).
 */
const PROCESS_WIDE_VARIABLES = ['LOG_LEVEL'];

/**
 * Names of the environment variables a process really reads: the ones its configuration loader
 * (src/config.ts) looks up when it parses an environment, recorded while it does (required,
 * optional and defaulted keys alike, and those spread in from @inkwell/config), plus
 * {@link PROCESS_WIDE_VARIABLES}. A variable a manifest sets that is not among them is ignored by
 * the process, say a misspelt optional key that silently leaves the default in force.
 */
export async function configVariables(process: DeployedProcess): Promise<string[]> {
  const read = new Set<string>(PROCESS_WIDE_VARIABLES);
  const recordingEnv = new Proxy({} as Record<string, string>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  try {
    await loadProcessConfig(process, recordingEnv);
  } catch (error) {
    // An empty environment lacks the required variables; the loader has looked every key up by then.
    if ((error as Error).name !== 'ConfigError') throw error;
  }
  return [...read];
}

/**
 * Parses `env` with the process's own configuration loader (the exported `load<Process>Config`
 * of its src/config.ts), exactly as the process does at boot. Throws the loader's ConfigError, which
 * lists every bad variable.
 */
export async function loadProcessConfig(process: DeployedProcess, env: Record<string, string>): Promise<unknown> {
  const module = (await import(pathToFileURL(join(REPO_ROOT, process.workspace, 'src/config.ts')).href)) as Record<string, unknown>;
  // load<Process>Config (loadUsersConfig); a config.ts may export loaders of other entries too (e.g. a CLI's).
  const expected = `load${process.name.charAt(0).toUpperCase()}${process.name.slice(1)}Config`;
  const loader = module[expected];
  if (typeof loader !== 'function') throw new Error(`${process.workspace}/src/config.ts must export ${expected}, the loader src/main.ts uses`);
  return (loader as (env: NodeJS.ProcessEnv) => unknown)(env);
}
