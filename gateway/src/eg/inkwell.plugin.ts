import type { EgGatewayRoute, EgPlugin, EgPolicy } from './eg.types.js';

/**
 * The global slot through which the CommonJS shim `gateway/config/plugins/inkwell-plugin.cjs`
 * (the module express-gateway `require()`s, exported as `@inkwell/gateway/eg-plugin`) hands
 * express-gateway the plugin that main.ts built from our ESM/TypeScript code.
 */
export const PLUGIN_SLOT: unique symbol = Symbol.for('inkwell.gateway.eg-plugin') as never;

/** What the plugin registers: our policies and gateway routes (in order: they are mounted in this order). */
export interface InkwellPluginParts {
  readonly policies: readonly EgPolicy[];
  readonly gatewayRoutes: readonly EgGatewayRoute[];
}

/** Whether express-gateway ran the plugin's `init`, and how it ended. */
export interface PluginLoadState {
  readonly initialised: boolean;
  /** What `init` threw (express-gateway only logs it). */
  readonly error: unknown;
  /** Names of the policies `init` registered. */
  readonly registeredPolicies: readonly string[];
}

/** The plugin object for express-gateway and a view of what happened when it was loaded. */
export interface InkwellPlugin {
  readonly plugin: EgPlugin;
  state(): PluginLoadState;
}

/**
 * Builds the express-gateway plugin that registers `parts`. Because express-gateway swallows
 * plugin errors (it only logs them), `init` records its outcome so that startup can check it
 * and fail loudly.
 */
export function createInkwellPlugin(parts: InkwellPluginParts): InkwellPlugin {
  let initialised = false;
  let error: unknown;
  const registeredPolicies: string[] = [];
  const plugin: EgPlugin = {
    version: '1.2.0',
    policies: parts.policies.map((policy) => policy.name),
    schema: { $id: 'https://inkwell.dev/schemas/plugins/inkwell.json', type: 'object', properties: { package: { type: 'string' } } },
    init(context) {
      try {
        for (const policy of parts.policies) {
          context.registerPolicy(policy);
          registeredPolicies.push(policy.name);
        }
        for (const route of parts.gatewayRoutes) context.registerGatewayRoute(route);
        initialised = true;
      } catch (cause) {
        error = cause;
        throw cause;
      }
    },
  };
  return { plugin, state: () => ({ initialised, error, registeredPolicies }) };
}

/** Puts `plugin` into the global slot for the shim; one gateway per process, so a second install throws. */
export function installPlugin(plugin: EgPlugin): void {
  const slot = globalThis as { [PLUGIN_SLOT]?: EgPlugin };
  if (slot[PLUGIN_SLOT] !== undefined) throw new Error('an express-gateway plugin is already installed in this process');
  slot[PLUGIN_SLOT] = plugin;
}
