import type { HttpMethod, RouteDefinition } from '../routing/route.types.js';

/** The order of methods within one path in the table: reads first, then writes. */
const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The endpoint table of docs/api/reference.md, "Endpoints", generated from the route table: one
 * row per route, by path and then method, with the scope the token must hold (— for none) and
 * the route's summary. `npm run docs:reference` writes it; a test fails when the page is stale.
 */
export function endpointTable(routes: readonly RouteDefinition[]): string {
  const rows = [...routes]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method)))
    .map((route) => {
      const summary = route.doc?.summary;
      if (summary === undefined) throw new Error(`route ${route.method} ${route.path} has no doc: every route of the table appears in docs/api/reference.md`);
      return `| ${route.method} | \`${route.path}\` | ${route.scope ?? '—'} | ${summary.replaceAll('|', '\\|')} |`;
    });
  return ['| method | path | scope | what it does |', '|---|---|---|---|', ...rows].join('\n');
}

/** The first line of the generated table in docs/api/reference.md. */
const TABLE_START = '| method | path | scope | what it does |';

/**
 * `page` (the text of docs/api/reference.md) with its endpoint table replaced by `table`: the
 * table runs from its header row to the first line that is not a table row. Throws when the page
 * has no such table.
 */
export function withEndpointTable(page: string, table: string): string {
  const lines = page.split('\n');
  const start = lines.indexOf(TABLE_START);
  if (start === -1) throw new Error(`docs/api/reference.md has no endpoint table (a line "${TABLE_START}")`);
  let end = start;
  while (end < lines.length && lines[end]?.startsWith('|')) end++;
  return [...lines.slice(0, start), table, ...lines.slice(end)].join('\n');
}
