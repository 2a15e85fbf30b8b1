import pg from 'pg';
import { assertIdentifier } from './identifier.js';
import { stderrLogger, type PgLogger } from './logger.js';

/** Options of `createPool`. */
export interface PoolOptions {
  /** A `postgres://` URL, e.g. DATABASE_URL. */
  connectionString: string;
  /** The one schema the service owns; every connection runs with `search_path` set to it. */
  schema: string;
  /** Maximum number of connections (default 10). */
  max?: number;
  /** Shown in `pg_stat_activity.application_name`; an `application_name` in the URL wins. */
  applicationName?: string;
  /** How long to wait for a free connection before failing (default 5 s). */
  connectionTimeoutMillis?: number;
  /** Where errors of connections are logged (default stderr). */
  logger?: PgLogger;
  /**
   * Server settings of every connection, sent as startup options (no extra round trip), e.g.
   * `{ jit: 'off' }` for short OLTP queries that JIT compilation only slows down. Names and values
   * are limited to `[A-Za-z0-9_.-]` so they cannot smuggle other options in.
   */
  settings?: Readonly<Record<string, string>>;
}

/** Anything that runs queries: the pool itself or a client checked out of it. */
export type Queryable = pg.Pool | pg.PoolClient;

/**
 * Creates the connection pool of a service. Every connection starts with
 * `search_path=<schema>` (sent as a startup option, so no extra round trip), which keeps a service
 * inside its own schema: unqualified table names resolve there and nowhere else. The schema need not
 * exist yet (`migrate` creates it). Errors of connections, idle or checked out (a crashed server, a
 * dropped socket), are logged instead of crashing the process; the pool replaces the connection.
 * An `options` parameter already present in the URL is kept and the search path appended to it.
 */
export function createPool(options: PoolOptions): pg.Pool {
  const schema = assertIdentifier(options.schema, 'schema name');
  const { connectionString, startupOptions } = splitStartupOptions(options.connectionString);
  const logger = options.logger ?? stderrLogger;
  const pool = new pg.Pool({
    connectionString,
    options: [startupOptions, `-c search_path=${schema}`, ...settingOptions(options.settings)].filter(Boolean).join(' '),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
  });
  // Every connection gets an error listener of its own: the pool listens only to idle ones, so a
  // connection checked out while the server goes away (a transaction awaiting Kafka, say) would
  // otherwise emit an unhandled 'error' and end the process. Its holder's next query fails instead.
  pool.on('connect', (client) => {
    client.on('error', (error) => logger.error({ err: error, schema }, 'postgres connection failed'));
  });
  // The pool repeats an idle connection's error here; it is logged above already.
  pool.on('error', () => {});
  return pool;
}

function settingOptions(settings: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries(settings).map(([name, value]) => {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || !/^[A-Za-z0-9_.-]+$/.test(value)) throw new Error(`invalid server setting ${name}=${value}`);
    return `-c ${name}=${value}`;
  });
}

/**
 * pg lets parameters in the URL override the config object, so an `options` query parameter
 * would silently replace our search path. Take it out of the URL and merge it instead.
 */
function splitStartupOptions(connectionString: string): { connectionString: string; startupOptions: string } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, startupOptions: '' };
  }
  const startupOptions = url.searchParams.get('options') ?? '';
  if (!url.searchParams.has('options')) return { connectionString, startupOptions };
  url.searchParams.delete('options');
  return { connectionString: url.toString(), startupOptions };
}

/**
 * Readiness probe: true when the pool can hand out a connection and run `SELECT 1` within
 * `timeoutMs` (default 2 s). Never throws.
 */
export async function checkPool(pool: pg.Pool, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
