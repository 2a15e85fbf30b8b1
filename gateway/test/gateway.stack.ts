import { dropSchemas, ensureDatabase, SERVICES, stackEnv, startSystem, type RunningProcess, type RunningSystem } from '@inkwell/testing';

/** The gateway with its real backends, for HTTP-level tests. */
export interface GatewayStack {
  readonly system: RunningSystem;
  /** Origin of the gateway, e.g. http://127.0.0.1:41234 (also its PUBLIC_BASE_URL). */
  readonly origin: string;
  /** The spawned process of `name` (`users`, `gateway`, ...). */
  process(name: string): RunningProcess;
  stop(): Promise<void>;
}

/**
 * Starts every service and the gateway as real processes on free ports, the services on their
 * own database `database` (created if missing, their schemas dropped first so the demo seed
 * gives user 1), with `env` added to every process (e.g. small rate limits), and waits until the
 * gateway's /readyz is 200. Built on @inkwell/testing's
 * startSystem, so the processes run exactly as in `npm run dev`.
 */
export async function startGatewayStack(database: string, env: Record<string, string> = {}): Promise<GatewayStack> {
  const stack = stackEnv();
  const databaseUrl = await ensureDatabase(stack.databaseUrl, database);
  await dropSchemas(databaseUrl, SERVICES.map((service) => service.name));
  const system = await startSystem({ stack: { ...stack, databaseUrl }, ports: 'free', seedDemoData: true, env: { LOG_LEVEL: 'warn', ...env } });
  return {
    system,
    origin: system.gatewayUrl,
    process(name) {
      const found = system.processes.find((candidate) => candidate.name === name);
      if (found === undefined) throw new Error(`no process ${name}`);
      return found;
    },
    stop: () => system.stop(),
  };
}
