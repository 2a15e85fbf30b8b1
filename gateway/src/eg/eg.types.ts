import type { ServerResponse } from 'node:http';
import type { GatewayRequest } from '../http/request-state.js';

/** Express-style middleware as express-gateway runs it in pipelines and on its app. */
export type Middleware = (req: GatewayRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/** A JSON schema as express-gateway registers it; every schema needs an `$id`. */
export interface EgSchema {
  readonly $id: string;
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
}

/**
 * A policy as express-gateway 1.x expects it: a name (listed under `policies:` in
 * gateway.config.yml), the schema of its `action` parameters, and a factory called once per
 * pipeline step with those parameters. The middleware answers the request itself or calls
 * `next`; express-gateway has no error handler, so it must render its own errors.
 */
export interface EgPolicy {
  readonly name: string;
  readonly schema: EgSchema;
  readonly policy: (actionParams: Readonly<Record<string, unknown>>) => Middleware;
}

/** The part of express-gateway's express app (express 4) that gateway routes use. */
export interface EgApp {
  use(handler: Middleware): unknown;
  /** `handler` for every request whose path is `path` or below it (`/api/v1`, `/api/v1/…`). */
  use(path: string, handler: Middleware): unknown;
  get(path: string, handler: (req: GatewayRequest, res: ServerResponse) => void): unknown;
  post(path: string, handler: (req: GatewayRequest, res: ServerResponse) => void): unknown;
  /** Every method of `path` (after the method-specific routes: a 405 fallback). */
  all(path: string, handler: (req: GatewayRequest, res: ServerResponse) => void): unknown;
  /** express's entry for every request; `callback` replaces its finalhandler when given. */
  handle(req: GatewayRequest, res: ServerResponse, callback?: (error?: unknown) => void): void;
}

/** A gateway route: called once with the app, before the pipelines are mounted. */
export type EgGatewayRoute = (app: EgApp) => void;

/** The context express-gateway passes to a plugin's `init` (the part we use). */
export interface EgPluginContext {
  registerPolicy(policy: EgPolicy): void;
  registerGatewayRoute(route: EgGatewayRoute): void;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** A plugin in express-gateway's plugin engine 1.2.0 format. */
export interface EgPlugin {
  readonly version: '1.2.0';
  readonly policies: readonly string[];
  readonly schema: EgSchema;
  init(context: EgPluginContext): void;
}
