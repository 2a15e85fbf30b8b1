import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import { PAGE_TEXT_BUDGET_BYTES, type MailboxQuery } from '../domain/mailbox-query.js';
import type { PrivateMessage } from '../domain/private-message.js';
import { messageReadChanged, messageSent } from '../events/private-message.events.js';

/** A message row as stored; `content`/`content_html` are null when left out of a page. */
interface MessageRow {
  id: string;
  sender_id: string;
  recipient_id: string;
  subject: string;
  content: string | null;
  content_html: string | null;
  date_sent: Date;
  read: boolean;
}

/** Everything needed to store a new message; the HTML is already rendered. */
export interface NewMessage {
  senderId: string;
  recipientId: string;
  subject: string;
  content: string;
  contentHtml: string;
}

/** One page of a mailbox query. */
export interface MailboxPage {
  /** In the query's order; `content` and `contentHtml` are '' when the query left them out. */
  messages: PrivateMessage[];
  /** Every message matching the query, over all pages. */
  total: number;
  /** True when the page's text was over the response budget (PAGE_TEXT_BUDGET_BYTES) and left out. */
  overBudget: boolean;
}

const COLUMNS = 'id, sender_id, recipient_id, subject, content, content_html, date_sent, read';

function toMessage(row: MessageRow): PrivateMessage {
  return {
    id: String(row.id),
    senderId: String(row.sender_id),
    recipientId: String(row.recipient_id),
    subject: row.subject,
    content: row.content ?? '',
    contentHtml: row.content_html ?? '',
    dateSent: row.date_sent,
    read: row.read,
  };
}

/** SQL access to the `messages` table of the messaging schema, and its outbox. */
export class PrivateMessageRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The message with this id, or undefined; who may see it is the service's call. */
  /**
   * Hides message `id` for good (docs/api/safety.md, "Reports and moderation"): moves it from
   * `messages` to `hidden_messages` (migration 0005), so that it leaves both mailboxes and every
   * read. Returns false when there is no such message (unknown, or already hidden).
   */
  async hide(id: string): Promise<boolean> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rowCount } = await client.query(
          `WITH moved AS (DELETE FROM messages WHERE id = $1 RETURNING ${COLUMNS})
           INSERT INTO hidden_messages (${COLUMNS}) SELECT ${COLUMNS} FROM moved ON CONFLICT (id) DO NOTHING`,
          [id],
        );
        return (rowCount ?? 0) > 0;
      });
    });
  }

  async findById(id: string): Promise<PrivateMessage | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = $1`, [id]);
      return rows[0] && toMessage(rows[0]);
    });
  }

  /** Stores a message and, in the same transaction, its `MessageSent` event; nothing once `signal` has aborted. */
  async create(message: NewMessage, signal?: AbortSignal): Promise<PrivateMessage> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<MessageRow>(
          `INSERT INTO messages (sender_id, recipient_id, subject, content, content_html) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
          [message.senderId, message.recipientId, message.subject, message.content, message.contentHtml],
        );
        const created = toMessage(rows[0]!);
        await appendEvent(client, { key: created.id, payload: messageSent(created) });
        return created;
      }, { signal });
    });
  }

  /**
   * Sets the read state of message `id` and returns the message, or undefined when it does not
   * exist. Only an actual change is written, with its `MessageReadChanged` event in the same
   * transaction: marking a read message read again changes nothing and publishes nothing, also
   * when two such requests race.
   */
  async setRead(id: string, read: boolean): Promise<PrivateMessage | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<MessageRow>(`UPDATE messages SET read = $2 WHERE id = $1 AND read <> $2 RETURNING ${COLUMNS}`, [id, read]);
        if (rows[0] === undefined) {
          const current = await client.query<MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = $1`, [id]);
          return current.rows[0] && toMessage(current.rows[0]);
        }
        const updated = toMessage(rows[0]);
        await appendEvent(client, { key: updated.id, payload: messageReadChanged(updated) });
        return updated;
      });
    });
  }

  /**
   * One page of `query` and the total over all pages. The page and the count run at the same
   * time on two connections (a message arriving in between may make them differ by one).
   */
  async listPage(query: MailboxQuery): Promise<MailboxPage> {
    const sql = mailboxSql(query);
    return withPgErrors(async () => {
      const [page, count] = await Promise.all([
        this.pool.query<MessageRow & { over_budget: boolean }>(sql.page, sql.pageParams),
        this.pool.query<{ total: string }>(sql.count, sql.params),
      ]);
      return {
        messages: page.rows.map(toMessage),
        total: Number(count.rows[0]?.total ?? 0),
        overBudget: page.rows[0]?.over_budget ?? false,
      };
    });
  }
}

/** The SQL of one mailbox query: the page (with the text budget) and the count. */
export interface MailboxSql {
  page: string;
  pageParams: unknown[];
  count: string;
  params: unknown[];
}

/**
 * Builds the SQL of a mailbox query. The caller's messages are one or two "branches", each an
 * index range of the covering indexes (migrations/0002): received (recipient_id), sent
 * (sender_id), or a conversation (the least/greatest pair, with the direction as a filter). The
 * whole mailbox with both sent and received is a UNION ALL of the two branches (a message to
 * oneself counted once). Filters apply to every branch; text filters are case-insensitive
 * substring matches with the LIKE wildcards escaped (the subject against its lower-cased copy).
 * The page picks ids index-only and then fetches the rows; the count is index-only unless
 * filter[content] is set.
 */
export function mailboxSql(query: MailboxQuery): MailboxSql {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };

  const filters: string[] = [];
  if (query.senderId !== undefined) filters.push(`sender_id = ${param(query.senderId)}`);
  if (query.subjectContains !== undefined) filters.push(`subject_folded LIKE lower(${param(containsPattern(query.subjectContains))})`);
  if (query.contentContains !== undefined) filters.push(`content ILIKE ${param(containsPattern(query.contentContains))}`);
  if (query.dateSentMin !== undefined) filters.push(`date_sent >= ${param(query.dateSentMin)}`);
  if (query.dateSentMax !== undefined) filters.push(`date_sent <= ${param(query.dateSentMax)}`);
  if (query.read !== undefined) filters.push(`read = ${param(query.read)}`);
  if (query.hiddenSenderIds !== undefined && query.hiddenSenderIds.length > 0) filters.push(`sender_id <> ALL (${param(query.hiddenSenderIds)}::bigint[])`);

  const me = param(query.callerId);
  const branches: string[] = [];
  if (query.otherId === undefined) {
    if (query.received) branches.push(`recipient_id = ${me}`);
    if (query.sent) branches.push(query.received ? `sender_id = ${me} AND recipient_id <> ${me}` : `sender_id = ${me}`);
  } else {
    // Always through the pair key, so that the conversation index is used in either direction.
    const other = param(query.otherId);
    const [low, high] = BigInt(query.callerId) < BigInt(query.otherId) ? [me, other] : [other, me];
    const pair = `least(sender_id, recipient_id) = ${low} AND greatest(sender_id, recipient_id) = ${high}`;
    if (query.sent && query.received) branches.push(pair);
    else branches.push(`${pair} AND sender_id = ${query.received ? other : me}`);
  }
  const where = (branch: string) => [branch, ...filters].join(' AND ');

  const direction = query.order.descending ? 'DESC' : 'ASC';
  const orderBy = query.order.field === 'read' ? `ORDER BY read ${direction}, id ${direction}` : `ORDER BY date_sent ${direction}, id ${direction}`;
  // Phase 1 picks the page's ids from the covering mailbox indexes alone (index-only: the
  // filterable columns are INCLUDEd), phase 2 fetches those rows by primary key.
  const pageParams = [...params];
  const limit = `$${pageParams.push(query.limit)}`;
  const offset = `$${pageParams.push(query.offset)}`;
  const budget = `$${pageParams.push(PAGE_TEXT_BUDGET_BYTES)}`;
  const select = (branch: string) => `SELECT id, date_sent, read FROM messages WHERE ${where(branch)}`;
  let selected: string;
  if (branches.length === 1) selected = `${select(branches[0]!)} ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
  else {
    // Postgres does not merge UNION ALL branches in index order, it sorts them whole. So each
    // branch stops at the first offset + limit rows in order, and only those are merged.
    const reach = `$${pageParams.push(query.offset + query.limit)}`;
    const parts = branches.map((branch) => `(${select(branch)} ${orderBy} LIMIT ${reach})`).join(' UNION ALL ');
    selected = `SELECT * FROM (${parts}) branches ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
  }
  const text = query.withContent ? 'm.content, m.content_html' : 'NULL::text AS content, NULL::text AS content_html';
  const textBytes = query.withContent ? 'octet_length(m.content) + octet_length(m.content_html)' : '0';
  // The window sum is over the page only, and reads the text's stored size without fetching it;
  // text beyond the budget is never sent to us.
  const page = `SELECT id, sender_id, recipient_id, subject, date_sent, read,
    CASE WHEN NOT over_budget THEN content END AS content,
    CASE WHEN NOT over_budget THEN content_html END AS content_html,
    over_budget
  FROM (
    SELECT m.id, m.sender_id, m.recipient_id, m.subject, m.date_sent, m.read, ${text},
      count(*) OVER () > 1 AND sum(${textBytes}) OVER () > ${budget} AS over_budget
    FROM (${selected}) p
    JOIN messages m ON m.id = p.id
  ) page
  ${orderBy}`;

  const counts = branches.map((branch) => `(SELECT count(*) FROM messages WHERE ${where(branch)})`);
  return { page, pageParams, count: `SELECT ${counts.join(' + ')} AS total`, params };
}

/** A LIKE/ILIKE pattern matching `text` anywhere, with `\`, `%` and `_` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
