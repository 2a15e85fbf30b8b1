import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Logger } from '@inkwell/logging';
import { bridgeExpressGatewayLogs } from './eg-logs.bridge.js';
import { installPlugin, type InkwellPlugin } from './inkwell.plugin.js';

const require = createRequire(import.meta.url);

/** Options of {@link startExpressGateway}. */
export interface ExpressGatewayOptions {
  /** Folder with gateway.config.yml, system.config.yml and models/. */
  readonly configDir: string;
  /** Bind address and port, substituted into gateway.config.yml as GATEWAY_HOST / GATEWAY_PORT. */
  readonly host: string;
  readonly port: number;
  readonly plugin: InkwellPlugin;
  readonly logger: Logger;
}

/** A listening gateway. */
export interface RunningExpressGateway {
  readonly server: Server;
  readonly address: AddressInfo;
}

interface ExpressGatewayMain {
  load(configDir: string): ExpressGatewayMain;
  run(): Promise<[{ app?: Server } | undefined, unknown]>;
}

let started = false;

/**
 * Starts express-gateway from code (`require('express-gateway')().load(dir).run()`) with our
 * plugin, and only resolves when it really serves our policies. Before starting it sets
 * EG_CONFIG_DIR and EG_DISABLE_CONFIG_WATCH=true (no hot reload: configuration changes are
 * deployments), routes its logs into `logger`, and installs the plugin for the CommonJS shim.
 *
 * express-gateway only logs a plugin that fails to load; this rejects instead when the plugin's
 * `init` did not run or threw, when a configured policy is missing (POLICY_NOT_FOUND) or
 * undeclared (POLICY_NOT_DECLARED), or when the configuration is invalid, closing the server if
 * it had begun listening. One gateway per process: its configuration and registries are global.
 */
export async function startExpressGateway(options: ExpressGatewayOptions): Promise<RunningExpressGateway> {
  if (started) throw new Error('express-gateway can run only once per process');
  started = true;
  process.env.EG_CONFIG_DIR = options.configDir;
  process.env.EG_DISABLE_CONFIG_WATCH = 'true';
  process.env.GATEWAY_HOST = options.host;
  process.env.GATEWAY_PORT = String(options.port);

  bridgeExpressGatewayLogs(require('express-gateway/lib/logger') as Record<string, unknown>, options.logger);
  cheapenExpressGatewayRequestIds();
  installPlugin(options.plugin.plugin);

  const createGateway = require('express-gateway') as () => ExpressGatewayMain;
  let server: Server | undefined;
  try {
    // run() throws synchronously on an invalid configuration and rejects on pipeline errors.
    const [gateway] = await Promise.resolve().then(() => createGateway().load(options.configDir).run());
    server = gateway?.app;
  } catch (error) {
    throw new Error(`express-gateway failed to start: ${describe(error)}${pluginProblem(options.plugin)}`, { cause: error });
  }
  if (server === undefined) throw new Error('express-gateway started no HTTP server: gateway.config.yml needs an http section');

  const state = options.plugin.state();
  const expected = options.plugin.plugin.policies;
  const missing = expected.filter((name) => !state.registeredPolicies.includes(name));
  if (!state.initialised || missing.length > 0) {
    await new Promise((resolve) => server.close(resolve));
    throw new Error(`the Inkwell plugin did not load completely${missing.length > 0 ? ` (missing policies: ${missing.join(', ')})` : ''}${pluginProblem(options.plugin)}`);
  }
  return { server, address: server.address() as AddressInfo };
}

/**
 * express-gateway gives every pipeline request an id of its own (`egContext.requestID`) from
 * uuid62, which allocates through the deprecated `new Buffer()`, draws 16 random bytes and
 * base62-encodes them: several percent of the gateway's CPU (stack-findings.md). Nothing of ours
 * reads that id (ours is X-Request-Id) and its only other reader is the proxy policy, which we do
 * not load, so it becomes a process-unique counter. uuid62 exports one shared instance, which
 * express-gateway's context module calls through at request time, so replacing its `v4` suffices.
 */
function cheapenExpressGatewayRequestIds(): void {
  const uuid62 = createRequire(require.resolve('express-gateway'))('uuid62') as { v4?: unknown };
  if (typeof uuid62.v4 !== 'function') return;
  const prefix = `eg${process.pid.toString(36)}-`;
  let counter = 0;
  uuid62.v4 = () => prefix + (++counter).toString(36);
}

function pluginProblem(plugin: InkwellPlugin): string {
  const state = plugin.state();
  if (state.error !== undefined) return `; the Inkwell plugin failed: ${describe(state.error)}`;
  if (!state.initialised) return '; the Inkwell plugin was never initialised (is it listed in system.config.yml?)';
  return '';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
