import { readFileSync, writeFileSync } from 'node:fs';
import { declaredApiRoutes } from './api.document.js';
import { endpointTable, withEndpointTable } from './endpoint-table.js';

/**
 * Rewrites the endpoint table of docs/api/reference.md from the route table, without a running
 * server: `npm run docs:reference`. The gateway's unit tests fail while the committed page differs.
 */
const page = new URL('../../../docs/api/reference.md', import.meta.url);
writeFileSync(page, withEndpointTable(readFileSync(page, 'utf8'), endpointTable(declaredApiRoutes())));
