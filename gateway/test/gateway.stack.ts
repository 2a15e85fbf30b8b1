import { dropSchemas, ensureDatabase, freePort, SERVICES, stackEnv, startProcess, startSystem, type RunningProcess, type RunningSystem } from '@inkwell/testing';

/** Another gateway process on the same backends (e.g. to see revocations reach every gateway). */
export interface ExtraGateway {
  readonly origin: string;
  /** Its Prometheus endpoint, on a metrics port of its own (never on `origin`). */
  readonly metricsUrl: string;
  readonly process: RunningProcess;
}

/** The gateway with its real backends, for HTTP-level tests. */
export interface GatewayStack {
  readonly system: RunningSystem;
  /** Origin of the gateway, e.g. http://127.0.0.1:41234 (also its PUBLIC_BASE_URL). */
  readonly origin: string;
  /** The gateway's Prometheus endpoint, e.g. http://127.0.0.1:41235/metrics: its metrics port, not `origin`. */
  readonly metricsUrl: string;
  /** The spawned process of `name` (`users`, `gateway`, ...). */
  process(name: string): RunningProcess;
  /**
   * Starts one more gateway on the same backends and Redis, with the stack's environment plus
   * `env` (its own port and PUBLIC_BASE_URL; `/readyz` is not awaited when `waitForReady` is
   * false, e.g. with Redis unreachable). Stopped with the stack.
   */
  startGateway(env?: Record<string, string>, waitForReady?: boolean): Promise<ExtraGateway>;
  stop(): Promise<void>;
}

/**
 * Starts every service and the gateway as real processes on free ports, the services on their
 * own database `database` (created if missing, their schemas dropped first so the demo seed
 * gives user 1), with `env` added to every process (e.g. small rate limits), and waits until the
 * gateway's /readyz is 200. Built on @inkwell/testing's startSystem, so the processes run
 * exactly as in `npm run dev`.
 */
export async function startGatewayStack(database: string, env: Record<string, string> = {}): Promise<GatewayStack> {
  const stack = stackEnv();
  const databaseUrl = await ensureDatabase(stack.databaseUrl, database);
  await dropSchemas(databaseUrl, SERVICES.map((service) => service.name));
  const systemEnv = { LOG_LEVEL: 'warn', ...env };
  const system = await startSystem({ stack: { ...stack, databaseUrl }, ports: 'free', seedDemoData: true, env: systemEnv });
  const extras: RunningProcess[] = [];
  return {
    system,
    origin: system.gatewayUrl,
    metricsUrl: system.gatewayMetricsUrl,
    process(name) {
      const found = system.processes.find((candidate) => candidate.name === name);
      if (found === undefined) throw new Error(`no process ${name}`);
      return found;
    },
    async startGateway(extraEnv = {}, waitForReady = true) {
      const port = await freePort();
      const metricsPort = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const addresses = Object.fromEntries(SERVICES.flatMap((service) => (system.addresses[service.name] === undefined ? [] : [[service.addressVariable, system.addresses[service.name] as string]])));
      const process = await startProcess({
        name: `gateway-${extras.length + 2}`,
        entry: 'gateway/src/main.ts',
        env: { ...system.keys.env('gateway'), DATABASE_URL: databaseUrl, REDIS_URL: stack.redisUrl, KAFKA_BROKERS: stack.kafkaBrokers.join(','), KAFKA_NAMESPACE: system.kafkaNamespace, REDIS_KEY_PREFIX: system.redisKeyPrefix, ...systemEnv, ...addresses, GATEWAY_PORT: String(port), GATEWAY_METRICS_PORT: String(metricsPort), PUBLIC_BASE_URL: origin, ...extraEnv },
        ready: async () => (waitForReady ? (await fetch(`${origin}/readyz`)).ok : (await fetch(`${origin}/healthz`)).ok),
      });
      extras.push(process);
      return { origin, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, process };
    },
    async stop() {
      for (const extra of extras) await extra.stop();
      await system.stop();
    },
  };
}
