import type pg from 'pg';
import { buildMailboxQuery, mailboxSql, type MailboxRequest } from '@inkwell/messaging';
import type { BenchRequest } from '../load.runner.js';
import { indexesOf, withSchema } from '../plans.js';
import { migrateSchemas, runSeed, scaled } from '../seed.runner.js';
import type { BenchContext, Scenario, Suite } from '../suite.js';

const MESSAGES = 1_000_000;
const USERS = 10_000;
/** Users whose inboxes are read: a fixed pseudo-random sample of everyone with mail. */
const SAMPLE = 200;
/** The biggest mailboxes, measured on their own as the worst case. */
const HEAVIEST = 10;
/** Subject words: topics of the generator, from common to rare. */
const SUBJECT_WORDS = ['feedback', 'chapter', 'villain', 'deadline', 'beta read', 'worldbuilding', 'prologue', 'commission'];

interface Target {
  id: string;
  token: string;
  /** The user they exchange most messages with. */
  correspondent: string;
}

function withDatabase<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withSchema(databaseUrl, 'messaging', fn);
}

async function messageCount(databaseUrl: string): Promise<number> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM messages');
    return Number(rows[0]!.n);
  });
}

/** EXPLAINs the page and count queries of a mailbox request as the service would run them. */
function explainMailbox(databaseUrl: string, callerId: string, request: Omit<MailboxRequest, 'userId'> & { userId?: string }): () => Promise<string> {
  return () =>
    withDatabase(databaseUrl, async (client) => {
      const sql = mailboxSql(buildMailboxQuery(callerId, { userId: callerId, ...request }));
      const explain = async (text: string, params: unknown[]) => indexesOf((await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows[0]!['QUERY PLAN']);
      const page = await explain(sql.page, sql.pageParams);
      const total = await explain(sql.count, sql.params);
      return `page: ${page.join(' → ')}; total: ${total.join(', ')}`;
    });
}

/**
 * Private messages (issue 5): inbox, conversation and subject search through the gateway, for a
 * fixed sample of users and for the biggest mailboxes, plus content search as an informational
 * row. Data: 1,000,000 messages between 10,000 users (tools/seed --messages), seeded when the
 * benchmark database has fewer.
 */
export const messagesSuite: Suite = {
  name: 'messages',
  dataSet: `${MESSAGES.toLocaleString('en')} private messages between ${USERS.toLocaleString('en')} users`,

  async prepare(databaseUrl, options) {
    migrateSchemas(databaseUrl);
    const want = scaled(MESSAGES, options.scale, 1000);
    const have = await messageCount(databaseUrl);
    if (have >= want) return;
    runSeed(databaseUrl, ['--stories', '0', '--messages', String(want - have), '--message-users', String(scaled(USERS, options.scale, 50))]);
  },

  async scenarios(context: BenchContext): Promise<Scenario[]> {
    const { sample, heaviest } = await withDatabase(context.databaseUrl, async (client) => {
      // Recipients of someone else's messages: each has a correspondent (a user with notes to self only has none).
      const pick = async (order: string, limit: number) =>
        (await client.query<{ id: string }>(`SELECT recipient_id AS id FROM messages WHERE sender_id <> recipient_id GROUP BY recipient_id ORDER BY ${order} LIMIT $1`, [limit])).rows.map((row) => String(row.id));
      const correspondent = async (id: string) => {
        const { rows } = await client.query<{ other: string }>(
          `SELECT CASE WHEN sender_id = $1 THEN recipient_id ELSE sender_id END AS other FROM messages
            WHERE (sender_id = $1 OR recipient_id = $1) AND sender_id <> recipient_id GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
          [id],
        );
        return String(rows[0]!.other);
      };
      const targets = async (ids: string[]): Promise<Target[]> => {
        const out: Target[] = [];
        for (const id of ids) out.push({ id, correspondent: await correspondent(id), token: await context.mintToken(id, ['read_pms']) });
        return out;
      };
      return { sample: await targets(await pick('md5(recipient_id::text)', SAMPLE)), heaviest: await targets(await pick('count(*) DESC', HEAVIEST)) };
    });

    const each = (targets: Target[], path: (target: Target, index: number) => string): BenchRequest[] => targets.map((target, index) => ({ path: path(target, index), token: target.token }));
    const word = (index: number) => SUBJECT_WORDS[index % SUBJECT_WORDS.length]!;
    const rep = sample[0]!;
    const big = heaviest[0]!;
    return [
      {
        name: `inbox: \`/users/me/private-messages\` (100 newest received; ${SAMPLE} users)`,
        requests: each(sample, () => '/users/me/private-messages'),
        answeredBy: explainMailbox(context.databaseUrl, rep.id, {}),
      },
      {
        name: `inbox of the ${HEAVIEST} biggest mailboxes`,
        requests: each(heaviest, () => '/users/me/private-messages'),
        answeredBy: explainMailbox(context.databaseUrl, big.id, {}),
      },
      {
        name: `conversation: \`/users/:other/private-messages?filter[sent]=true\` (both ways, top correspondent; ${SAMPLE} users)`,
        requests: each(sample, (target) => `/users/${target.correspondent}/private-messages?filter[sent]=true`),
        answeredBy: explainMailbox(context.databaseUrl, rep.id, { userId: rep.correspondent, sent: true }),
      },
      {
        name: `conversation of the ${HEAVIEST} biggest mailboxes with their top correspondent`,
        requests: each(heaviest, (target) => `/users/${target.correspondent}/private-messages?filter[sent]=true`),
        answeredBy: explainMailbox(context.databaseUrl, big.id, { userId: big.correspondent, sent: true }),
      },
      {
        name: `subject search: \`/users/me/private-messages?filter[subject]=<word>\` (${SAMPLE} users)`,
        requests: each(sample, (_target, index) => `/users/me/private-messages?filter[subject]=${encodeURIComponent(word(index))}`),
        answeredBy: explainMailbox(context.databaseUrl, rep.id, { subjectContains: word(0) }),
      },
      {
        name: `subject search in the ${HEAVIEST} biggest mailboxes`,
        requests: heaviest.flatMap((target) => SUBJECT_WORDS.map((w) => ({ path: `/users/me/private-messages?filter[subject]=${encodeURIComponent(w)}`, token: target.token }))),
        answeredBy: explainMailbox(context.databaseUrl, big.id, { subjectContains: word(0) }),
      },
      {
        name: `(no target) content search in the ${HEAVIEST} biggest mailboxes`,
        requests: heaviest.map((target) => ({ path: '/users/me/private-messages?filter[content]=dragon', token: target.token })),
        answeredBy: explainMailbox(context.databaseUrl, big.id, { contentContains: 'dragon' }),
        target: false,
      },
    ];
  },
};
