import type { CallerContext } from '@inkwell/grpc';

let requests = 0;

/**
 * Call options of a test caller: who it is (user id, app id, scopes) and a request id unique in
 * this process, as the gateway would send them.
 */
export function callAs(who: Omit<CallerContext, 'requestId'>): { caller: CallerContext } {
  requests += 1;
  return { caller: { requestId: `test-${requests}`, ...who } };
}

/** What a service's test harness opens: a gRPC client of its server, the server, maybe Redis, and its pool. */
export interface ServiceHarnessParts {
  client: { close(): void };
  server: { shutdown(graceMs: number): Promise<void> };
  redis?: { disconnect(): void };
  pool: { end(): Promise<void> };
}

/**
 * Closes a service harness: the client, then the server (1 s grace for calls in flight), then
 * Redis; then `beforePool` (what else the harness opened, e.g. search indices) and the pool last.
 */
export async function closeServiceHarness(parts: ServiceHarnessParts, beforePool?: () => Promise<void>): Promise<void> {
  parts.client.close();
  await parts.server.shutdown(1_000);
  parts.redis?.disconnect();
  await beforePool?.();
  await parts.pool.end();
}
