import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { apiDocument } from './api.document.js';

/**
 * Writes the API document (the same JSON GET /api/v1/openapi.json serves) to the file named by
 * the first argument, without a running server: `@inkwell/client`'s generate task runs it.
 */
const target = process.argv[2];
if (target === undefined) {
  console.error('usage: write-document.ts <output.json>');
  process.exit(2);
}
const path = resolve(target);
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, `${JSON.stringify(apiDocument(), null, 2)}\n`);
