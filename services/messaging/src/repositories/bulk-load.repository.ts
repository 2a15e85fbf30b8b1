import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from '@inkwell/logging';
import type { GeneratedMessage } from '../seed/message.generator.js';

/** How a bulk load went. */
export interface MessageBulkLoadResult {
  messages: number;
  /** Seconds spent in COPY and in rebuilding the indexes. */
  copySeconds: number;
  indexSeconds: number;
}

const COLUMNS = ['id', 'sender_id', 'recipient_id', 'subject', 'content', 'content_html', 'date_sent', 'read'];

/** One value in COPY text format. */
function copyValue(value: string | number | boolean | Date): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

function messageLine(message: GeneratedMessage): string {
  const values = [message.id, message.senderId, message.recipientId, message.subject, message.content, message.contentHtml, message.dateSent, message.read];
  return `${values.map(copyValue).join('\t')}\n`;
}

/**
 * Loads generated messages fast, for the benchmark data set (no events: nobody consumes a
 * million synthetic sends): drops the secondary indexes, COPYs the rows, rebuilds the indexes
 * from their own definitions, moves the id sequence past the last id, and VACUUM ANALYZEs so
 * that counts can use index-only scans straight away.
 */
export class MessageBulkLoadRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The next free message id (1 on an empty table). */
  async nextId(): Promise<number> {
    const { rows } = await this.pool.query<{ next: string }>('SELECT coalesce(max(id), 0) + 1 AS next FROM messages');
    return Number(rows[0]!.next);
  }

  /** How many messages are stored. */
  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>('SELECT count(*) AS count FROM messages');
    return Number(rows[0]!.count);
  }

  /** Loads `messages` (ids must be free) and returns what it took. */
  async load(messages: Iterable<GeneratedMessage>, logger: Logger): Promise<MessageBulkLoadResult> {
    const client = await this.pool.connect();
    let count = 0;
    try {
      const { rows: indexes } = await client.query<{ name: string; definition: string }>(
        `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename = 'messages' AND indexname <> 'messages_pkey'`,
      );
      for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
      logger.info({ indexes: indexes.map((index) => index.name) }, 'secondary indexes dropped for the load');

      const copyStarted = performance.now();
      const stream = client.query(copyFrom(`COPY messages (${COLUMNS.join(', ')}) FROM STDIN`));
      const done = pipeline(async function* () {
        let chunk = '';
        for (const message of messages) {
          chunk += messageLine(message);
          count++;
          if (chunk.length > 1 << 20) {
            yield chunk;
            chunk = '';
          }
          if (count % 100_000 === 0) logger.info({ count }, 'messages copied');
        }
        if (chunk !== '') yield chunk;
      }, stream);
      await done;
      const copySeconds = (performance.now() - copyStarted) / 1000;

      const indexStarted = performance.now();
      await client.query('SET maintenance_work_mem = \'512MB\'');
      for (const index of indexes) {
        await client.query(index.definition);
        logger.info({ index: index.name }, 'index rebuilt');
      }
      await client.query("SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))");
      await client.query('VACUUM (ANALYZE) messages');
      return { messages: count, copySeconds, indexSeconds: (performance.now() - indexStarted) / 1000 };
    } finally {
      client.release();
    }
  }
}
