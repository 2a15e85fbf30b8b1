'use strict';
// express-gateway require()s its plugins as CommonJS. The Inkwell plugin is ESM/TypeScript and is
// built by gateway/src/main.ts, which puts it into this global slot before starting the gateway
// (see gateway/src/eg/inkwell.plugin.ts). Nothing else lives here.
const plugin = globalThis[Symbol.for('inkwell.gateway.eg-plugin')];
if (plugin === undefined) {
  throw new Error('The Inkwell express-gateway plugin is not installed: start the gateway with gateway/src/main.ts.');
}
module.exports = plugin;
