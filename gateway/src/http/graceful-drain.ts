import { Server as NetServer } from 'node:net';
import type { Server as HttpServer } from 'node:http';

/** The part of a server that {@link drainHttpServer} uses. */
export interface DrainableServer {
  /** Stops accepting connections; `callback` runs once every open connection has ended. */
  stopListening(callback: () => void): void;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

/**
 * A node:http server as {@link DrainableServer}. Stopping to listen leaves idle keep-alive
 * connections alone (node:http's own `close()` closes them at once): each ends when the server's
 * keep-alive timeout runs out, which it announces in `Keep-Alive: timeout=<s>`, so a client that
 * honours the hint has stopped reusing it by then and never writes to a connection being closed.
 */
export function drainableHttpServer(server: HttpServer): DrainableServer {
  return {
    stopListening: (callback) => void NetServer.prototype.close.call(server, () => callback()),
    closeIdleConnections: () => server.closeIdleConnections(),
    closeAllConnections: () => server.closeAllConnections(),
  };
}

/** Options of {@link drainHttpServer}. */
export interface DrainOptions {
  server: DrainableServer;
  /** Turns readiness off: `/readyz` answers 503 and every answer from now on carries `Connection: close`. */
  readinessOff: () => void;
  /**
   * How long the server keeps accepting and answering after readiness turned off, so load
   * balancers stop sending first. 0 (test systems, SHUTDOWN_DELAY_MS=0) is a stop without
   * politeness: idle connections are closed as the listener closes instead of timing out.
   */
  delayMs: number;
  /** Longest the whole drain takes, from its start: connections still open then are closed. */
  graceMs: number;
  /** Called once at every step, for the log. */
  onStep?: (step: DrainStep) => void;
}

/** The steps of a drain, in their order. */
export type DrainStep = 'readiness off' | 'listener closed' | 'connections closed' | 'forced close';

/**
 * Drains an HTTP server the way load balancers expect (docs/api/foundation.md, "Readiness and
 * backend outages"), resolving once every connection has ended:
 *
 * 1. readiness off at once: `/readyz` is 503, and every answer carries `Connection: close`, so a
 *    keep-alive connection ends after the answer to the request it carries;
 * 2. for `delayMs` it keeps serving everything that arrives, on new connections too, while load
 *    balancers take it out of rotation and busy clients' connections end one answer at a time;
 * 3. then it stops listening; a connection that carries no request is not closed by the drain
 *    but ends by its keep-alive timeout (see {@link drainableHttpServer}), so no request written
 *    to an idle connection meets a closing one (without a delay, idle connections are closed);
 * 4. requests in progress finish and their connections end after the answer; whatever is still
 *    open `graceMs` after the start is closed (`forced close`).
 */
export function drainHttpServer(options: DrainOptions): Promise<void> {
  const { server, onStep } = options;
  return new Promise<void>((resolve) => {
    options.readinessOff();
    onStep?.('readiness off');
    let listening = true;
    const stopListening = (): void => {
      if (!listening) return;
      listening = false;
      server.stopListening(() => {
        clearTimeout(forced);
        onStep?.('connections closed');
        resolve();
      });
      onStep?.('listener closed');
      if (options.delayMs === 0) server.closeIdleConnections();
    };
    const forced = setTimeout(() => {
      stopListening();
      onStep?.('forced close');
      server.closeAllConnections();
    }, options.graceMs);
    setTimeout(stopListening, Math.min(options.delayMs, options.graceMs));
  });
}
