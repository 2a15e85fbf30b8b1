import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { repoRoot, SERVICES } from '@inkwell/testing';

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
}

/** The repository root (the folder with turbo.json). */
export const REPO_ROOT = repoRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * Every process that runs in a deployment: the gateway and each service the system starts
 * (packages/testing SERVICES, the same list `npm run dev` and the end-to-end tests use).
 */
export const DEPLOYED_PROCESSES: readonly DeployedProcess[] = [
  { name: 'gateway', workspace: 'gateway', component: 'gateway', port: 8080, portVariable: 'GATEWAY_PORT', hostVariable: 'GATEWAY_HOST' },
  ...SERVICES.map((service) => ({
    name: service.name,
    workspace: dirname(dirname(service.entry)),
    component: 'grpc-service' as const,
    port: service.defaultPort,
    portVariable: service.portVariable,
    hostVariable: service.portVariable.replace(/_PORT$/, '_HOST'),
    addressVariable: service.addressVariable,
  })),
];

/**
 * Names of the environment variables a process's configuration schema reads, taken from its
 * src/config.ts: every SCREAMING_SNAKE key of the zod object (camelCase keys of a transformed
 * result do not match).
 */
export function configVariables(process: DeployedProcess): string[] {
  const source = readFileSync(join(REPO_ROOT, process.workspace, 'src/config.ts'), 'utf8');
  return [...new Set([...source.matchAll(/^\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*:/gm)].map((match) => match[1] as string))];
}

/**
 * Parses `env` with the process's own configuration loader (the exported `load…Config` of its
 * src/config.ts), exactly as the process does at boot. Throws the loader's ConfigError, which
 * lists every bad variable.
 */
export async function loadProcessConfig(process: DeployedProcess, env: Record<string, string>): Promise<unknown> {
  const module = (await import(pathToFileURL(join(REPO_ROOT, process.workspace, 'src/config.ts')).href)) as Record<string, unknown>;
  const loaders = Object.entries(module).filter(([name, value]) => /^load\w*Config$/.test(name) && typeof value === 'function');
  if (loaders.length !== 1) throw new Error(`${process.workspace}/src/config.ts must export exactly one load…Config function, found ${loaders.map(([name]) => name).join(', ') || 'none'}`);
  return (loaders[0]?.[1] as (env: NodeJS.ProcessEnv) => unknown)(env);
}
