import { eventuallyValue } from '@inkwell/testing';
import fc from 'fast-check';
import type pg from 'pg';
import { callApi, type ApiAnswer, type ApiRequest } from './api-client.js';
import { audit, drained, OUTBOX_SCHEMAS } from './consistency.audit.js';
import type { Actor } from './world.js';

/** One operation of the API document (GET /api/v1/openapi.json). */
export interface FuzzOperation {
  readonly method: string;
  /** `/stories/{id}/rating` */
  readonly path: string;
  readonly query: readonly { name: string; values: readonly string[] }[];
  /** The request body's example, when the operation takes one. */
  readonly bodyExample: unknown;
}

interface OpenApiParameter {
  name?: string;
  in?: string;
  schema?: { enum?: string[]; example?: unknown };
  example?: unknown;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[]; requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>>;
  components: { schemas: Record<string, { example?: unknown }> };
}

/** The operations of the API document, with each query parameter's enumerated or example values. */
export function operationsOf(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const query = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query' && parameter.name !== undefined)
        .map((parameter) => ({ name: parameter.name!, values: [...(parameter.schema?.enum ?? []), ...[parameter.example, parameter.schema?.example].filter((value) => value !== undefined).map(String)] }));
      const ref = Object.values(operation.requestBody?.content ?? {})[0]?.schema?.$ref;
      const bodyExample = ref === undefined ? undefined : document.components.schemas[ref.split('/').pop()!]?.example;
      operations.push({ method: method.toUpperCase(), path, query, bodyExample });
    }
  }
  return operations;
}

const HOSTILE = ['', 'abc', '01', '-1', '0', '99999999999999999999', '9223372036854775808', "1' OR '1'='1", '1;DROP TABLE stories', '%00', '..%2F..%2Fetc', '\u0000', '🙂', 'a'.repeat(3000), '[]', '{}', 'null', 'true', '-', ',', '*'];

/** One generated request, before the actor's ids are filled in. */
export interface FuzzCase {
  readonly operation: FuzzOperation;
  readonly pathValues: readonly string[];
  readonly query: readonly [string, string][];
  readonly headers: Record<string, string>;
  readonly token: 'actor' | 'none' | 'garbage';
  readonly body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };
}

/** Replaces values at random places of a JSON value (the example body) with arbitrary JSON. */
function mutated(example: unknown): fc.Arbitrary<unknown> {
  if (example === null || typeof example !== 'object') return fc.oneof(fc.constant(example), fc.jsonValue());
  const entries = Object.entries(example as Record<string, unknown>);
  return fc
    .tuple(...entries.map(([key, value]) => fc.oneof({ weight: 3, arbitrary: mutated(value).map((v) => [key, v] as const) }, { weight: 1, arbitrary: fc.jsonValue().map((v) => [key, v] as const) }, { weight: 1, arbitrary: fc.constant([key, undefined] as const) })))
    .chain((pairs) => fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue(), { maxKeys: 2 }).map((extra) => ({ ...(Array.isArray(example) ? {} : extra), ...Object.fromEntries(pairs.filter(([, v]) => v !== undefined)) })))
    .map((value) => (Array.isArray(example) ? Object.values(value) : value));
}

/** Arbitrary requests over the operations: paths, query parameters, headers and JSON bodies. */
export function fuzzCases(operations: readonly FuzzOperation[], knownIds: readonly string[]): fc.Arbitrary<FuzzCase> {
  const value = (known: readonly string[]) => fc.oneof(fc.constantFrom(...known), fc.constantFrom(...HOSTILE), fc.string({ maxLength: 40 }), fc.integer({ min: -5, max: 10_000 }).map(String));
  return fc.constantFrom(...operations).chain((operation) => {
    const placeholders = operation.path.match(/\{[^}]+\}/g) ?? [];
    const queryNames = [...operation.query.map((parameter) => parameter.name), 'unknown', 'page[size]', 'filter[nope]', 'include', 'sort', 'fields[story]'];
    return fc.record({
      operation: fc.constant(operation),
      pathValues: fc.tuple(...placeholders.map(() => value([...knownIds, 'me']))),
      query: fc.array(
        fc.constantFrom(...queryNames).chain((name) => fc.tuple(fc.constant(name), value(operation.query.find((parameter) => parameter.name === name)?.values.length ? operation.query.find((parameter) => parameter.name === name)!.values : ['1']))),
        { maxLength: 4 },
      ),
      headers: fc.record(
        {
          'content-type': fc.constantFrom('application/vnd.api+json', 'application/json', 'application/json; charset=latin1', 'application/vnd.api+json; ext="x"', 'text/plain', 'application/xml'),
          'idempotency-key': fc.oneof(fc.string({ maxLength: 20 }), fc.uuid()),
          'x-request-id': fc.string({ maxLength: 140 }),
          accept: fc.constantFrom('application/vnd.api+json', '*/*', 'text/html', 'application/vnd.api+json; ext="x"'),
        },
        { requiredKeys: [] },
      ),
      token: fc.constantFrom('actor', 'actor', 'actor', 'actor', 'none', 'garbage'),
      body:
        operation.bodyExample === undefined
          ? fc.constant({ kind: 'none' as const })
          : fc.oneof(
              { weight: 6, arbitrary: mutated(operation.bodyExample).map((json) => ({ kind: 'json' as const, value: json })) },
              { weight: 1, arbitrary: fc.jsonValue().map((json) => ({ kind: 'json' as const, value: json })) },
              { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ kind: 'raw' as const, text })) },
            ),
    });
  });
}

/** The HTTP request of a case, with the actor's token. */
export function requestOf(fuzz: FuzzCase, actor: Actor): ApiRequest {
  let index = 0;
  const path = fuzz.operation.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(fuzz.pathValues[index++] ?? '1'));
  const query = fuzz.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  const headers = Object.fromEntries(Object.entries(fuzz.headers).filter(([, value]) => /^[\x20-\x7e]*$/.test(value)));
  const token = fuzz.token === 'actor' ? actor.token : fuzz.token === 'garbage' ? 'iwk_pat_not-a-token' : undefined;
  return {
    method: fuzz.operation.method,
    path: query === '' ? path : `${path}?${query}`,
    headers,
    ...(token === undefined ? {} : { token }),
    ...(fuzz.body.kind === 'json' ? { rawBody: JSON.stringify(fuzz.body.value) ?? 'null' } : fuzz.body.kind === 'raw' ? { rawBody: fuzz.body.text } : {}),
  };
}

/** What no answer of the API may contain: a stack trace or SQL (docs/api/foundation.md: causes are logged, never sent). */
const LEAKS = [/\n\s+at [^\n]+\(/, /\bat [\w.<>]+ \(\/[^)]+:\d+:\d+\)/, /node_modules\//, /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b[^"]*\b(FROM|WHERE|VALUES)\b/i, /syntax error at or near/, /violates (unique|foreign key|check) constraint/, /relation "[^"]+" does not exist/];

/** Why an answer is wrong for any request, or undefined when it is fine. */
export function answerProblem(answer: ApiAnswer): string | undefined {
  if (answer.status === 0) return `no answer (${answer.error})`;
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  const leak = LEAKS.find((pattern) => pattern.test(answer.text));
  return leak === undefined ? undefined : `body leaks internals (${leak}): ${answer.text.slice(0, 300)}`;
}

/** Every user-visible table of the system, for the fingerprint (consumer bookkeeping left out). */
async function fingerprintTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' AND table_name NOT IN ('processed_events', 'schema_migrations', 'outbox', 'access_tokens', 'sign_in_throttles')
     ORDER BY 1`,
    [OUTBOX_SCHEMAS],
  );
  return rows.map((row) => row.name);
}

/**
 * The state of the system's database in one value: a hash of every user-visible row, and the
 * number of events written to the outboxes. Equal before and after a rejected request means it
 * changed nothing.
 */
export async function stateFingerprint(pool: pg.Pool, tables: readonly string[]): Promise<string> {
  const parts = tables.map((table) => `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${table} t)`);
  const events = OUTBOX_SCHEMAS.map((schema) => `(SELECT count(*) FROM ${schema}.outbox)`).join(' + ');
  const { rows } = await pool.query<{ state: string; events: string }>(`SELECT md5(concat_ws(',', ${parts.join(', ')})) AS state, (${events})::text AS events`);
  return `${rows[0]?.events}:${rows[0]?.state}`;
}

/** Options of {@link fuzzApi}. */
export interface FuzzOptions {
  readonly apiUrl: string;
  readonly pool: pg.Pool;
  readonly actor: Actor;
  /** Ids worth using in paths (existing resources of the actor and others). */
  readonly knownIds: readonly string[];
  readonly runs: number;
  readonly seed: number;
}

/** GETs that count chapter views (docs/api/stories.md): chapter text asked for, and whole-story downloads. */
function countsViews(path: string): boolean {
  return path.includes('content') || /\/download\.\w+/.test(path);
}

/**
 * Sends `runs` generated requests (seeded: a failure names the seed and the shrunk case) and
 * checks each answer: below 500, no stack trace or SQL in the body, and a rejected request
 * (4xx) leaves the database as it was. After an accepted request that wrote events, waits
 * until they are applied, so that the next fingerprint is not disturbed by consumers.
 */
export async function fuzzApi(options: FuzzOptions): Promise<void> {
  const document = (await (await fetch(`${options.apiUrl}/openapi.json`)).json()) as OpenApiDocument;
  const tables = await fingerprintTables(options.pool);
  // A timeout shows what was still waiting (outbox backlogs, unprocessed events per consumer, fan-outs).
  const settle = () =>
    eventuallyValue(
      async () => {
        const { outboxBacklog, unprocessed, queuedFanouts } = await audit(options.pool);
        return { outboxBacklog, unprocessed, queuedFanouts };
      },
      drained,
      { timeoutMs: 30_000, intervalMs: 100, what: 'events of the accepted request applied' },
    );
  // Whatever the world's set-up started (events, notification fan-outs) ends before the first case.
  await settle();
  await fc.assert(
    fc.asyncProperty(fuzzCases(operationsOf(document), options.knownIds), async (fuzz) => {
      const before = await stateFingerprint(options.pool, tables);
      const request = requestOf(fuzz, options.actor);
      const answer = await callApi(options.apiUrl, request);
      const problem = answerProblem(answer);
      if (problem !== undefined) throw new Error(`${request.method} ${request.path}: ${problem}`);
      if (answer.status >= 400) {
        const after = await stateFingerprint(options.pool, tables);
        if (after !== before) throw new Error(`${request.method} ${request.path} was rejected (${answer.status}) but changed the database`);
      } else if (request.method !== 'GET' || countsViews(request.path)) {
        await settle();
      }
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
}
