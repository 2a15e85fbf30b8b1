import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BOOKSHELVES_SCHEMA } from '@inkwell/bookshelves';
import { prng, Zipf } from '@inkwell/datagen';
import type { Logger } from '@inkwell/logging';
import { createPool, withTransaction } from '@inkwell/pg';
import { STORIES_SCHEMA } from '@inkwell/stories';

/** What seedBookshelves adds. */
export interface SeedBookshelvesOptions {
  /** Items on ordinary users' shelves (a few shelves each, a few to a few hundred items per shelf). */
  ordinaryItems: number;
  /** Stories on the one big public shelf (0: none). */
  bigShelf: number;
  /** Stories on the one private shelf of medium size (0: none). */
  mediumShelf: number;
  seed: number;
  logger: Logger;
}

/** What seedBookshelves added. */
export interface SeedBookshelvesResult {
  shelves: number;
  items: number;
  owners: number;
}

interface Shelf {
  id: number;
  ownerId: string;
  name: string;
  privacy: 'public' | 'private';
  color: string;
  position: number;
  created: Date;
  stories: number[];
  /** The item id of each story, in the same order. */
  itemIds: number[];
  read: boolean[];
  added: Date[];
}

const NAMES = ['Favourites', 'Read later', 'Finished', 'Comfort reads', 'To recommend', 'Rainy days', 'Epics', 'Short and sweet', 'Rereads', 'Abandoned'];
const COLORS = ['#cc3333', '#3366cc', '#339966', '#aa7700', '#663399', '#0099aa'];
/** Shelves span the three years before now. */
const SPAN_MS = 3 * 365 * 24 * 3600 * 1000;

/**
 * Adds generated bookshelves (COPY) the way the running system would hold them: the bookshelves
 * schema (shelves with exact num_items/num_stories/num_unread, items, and the service's copy of
 * every shelved story in `known_stories`) and the stories service's copy of membership
 * (`stories.bookshelves` and `stories.bookshelf_items`, current and live, as its consumer writes
 * them after the events; the copy's story columns are filled by that table's own trigger, as for
 * the consumer's inserts — docs/api/stories.md, "Bookshelves in story lists").
 *
 * Shelves hold published stories only, chosen with a Zipf skew over a shuffled order (some
 * stories are on many shelves). Ordinary owners are the users with the lowest ids, 1–5 shelves
 * each, shelf sizes skewed from 1 to 300 items (always fewer than the special shelves hold); the
 * big shelf (public) and the medium one (private) belong to the two users with the highest ids,
 * so they are the two biggest shelves and the only ones of their owners.
 */
export async function seedBookshelves(url: string, options: SeedBookshelvesOptions): Promise<SeedBookshelvesResult> {
  const shelvesPool = createPool({ connectionString: url, schema: BOOKSHELVES_SCHEMA, max: 2, applicationName: 'inkwell-seed' });
  const storiesPool = createPool({ connectionString: url, schema: STORIES_SCHEMA, max: 2, applicationName: 'inkwell-seed' });
  try {
    const { rows: storyRows } = await storiesPool.query<{ id: string }>('SELECT id FROM stories WHERE published ORDER BY id');
    const storyIds = storyRows.map((row) => Number(row.id));
    if (storyIds.length === 0) throw new Error('no published stories to shelve: seed stories first');
    const { rows: userRows } = await storiesPool.query<{ id: string }>(`SELECT id FROM users.users ORDER BY id`);
    const userIds = userRows.map((row) => String(row.id));
    if (userIds.length < 3) throw new Error('at least 3 users are needed to own bookshelves');
    const { rows: next } = await shelvesPool.query<{ shelf: string; item: string }>(
      'SELECT (SELECT coalesce(max(id), 0) + 1 FROM bookshelves) AS shelf, (SELECT coalesce(max(id), 0) + 1 FROM bookshelf_items) AS item',
    );

    const shelves = generateShelves(storyIds, userIds, { shelf: Number(next[0]!.shelf), item: Number(next[0]!.item) }, options);
    const items = await loadShelves(shelvesPool, shelves);
    options.logger.info({ shelves: shelves.length, items }, 'bookshelves loaded');
    await loadStoriesCopy(storiesPool, shelves);
    options.logger.info({ shelves: shelves.length, items }, 'stories copy of bookshelves loaded');
    // As autovacuum would leave settled tables: statistics, and a visibility map for index-only walks.
    await shelvesPool.query('VACUUM (ANALYZE) bookshelves, bookshelf_items, known_stories');
    await storiesPool.query('VACUUM (ANALYZE) bookshelves, bookshelf_items');
    return { shelves: shelves.length, items, owners: new Set(shelves.map((shelf) => shelf.ownerId)).size };
  } finally {
    await shelvesPool.end();
    await storiesPool.end();
  }
}

/** The shelves of SeedBookshelvesOptions, shelf and item ids from `first`, deterministic for one seed. */
function generateShelves(storyIds: readonly number[], userIds: readonly string[], first: { shelf: number; item: number }, options: SeedBookshelvesOptions): Shelf[] {
  const random = prng(options.seed ^ 0x5e1f);
  const now = Date.now();
  // A shuffled popularity order, so popular stories are not simply the oldest ids.
  const order = Uint32Array.from(storyIds.keys());
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const popularity = new Zipf(storyIds.length, 0.6);
  const sizes = new Zipf(300, 1.1);
  const shelves: Shelf[] = [];
  let nextItem = first.item;
  const shelf = (ownerId: string, position: number, size: number, privacy: Shelf['privacy'], unique: (n: number) => number[]): Shelf => {
    const created = new Date(now - SPAN_MS + Math.floor(random() * SPAN_MS * 0.2));
    const stories = unique(size);
    const added = stories.map(() => new Date(created.getTime() + Math.floor(random() * (now - created.getTime()))));
    added.sort((a, b) => a.getTime() - b.getTime());
    return {
      id: first.shelf + shelves.length,
      ownerId,
      name: NAMES[Math.floor(random() * NAMES.length)]!,
      privacy,
      color: COLORS[Math.floor(random() * COLORS.length)]!,
      position,
      created,
      stories,
      itemIds: stories.map(() => nextItem++),
      read: stories.map(() => random() < 0.4),
      added,
    };
  };
  // Distinct stories: by popularity for ordinary shelves, uniformly for the big ones.
  const popular = (n: number) => {
    const chosen = new Set<number>();
    for (let tries = 0; chosen.size < Math.min(n, storyIds.length) && tries < n * 20; tries++) chosen.add(storyIds[order[popularity.pick(random)]!]!);
    return [...chosen];
  };
  const uniform = (n: number) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(n, storyIds.length)) chosen.add(storyIds[Math.floor(random() * storyIds.length)]!);
    return [...chosen];
  };

  // The two special owners are the last users; ordinary owners are taken from the first ones.
  if (options.bigShelf > 0) shelves.push(shelf(userIds[userIds.length - 1]!, 1, options.bigShelf, 'public', uniform));
  if (options.mediumShelf > 0) shelves.push(shelf(userIds[userIds.length - 2]!, 1, options.mediumShelf, 'private', uniform));
  // Ordinary shelves stay smaller than both special ones, so those are the two biggest shelves.
  const largestOrdinary = Math.max(1, Math.min(...[options.bigShelf, options.mediumShelf].filter((size) => size > 0).map((size) => size - 1), 300));
  let items = 0;
  for (let owner = 0; items < options.ordinaryItems; owner = (owner + 1) % (userIds.length - 2)) {
    const count = 1 + Math.floor(random() * 5);
    for (let position = 1; position <= count && items < options.ordinaryItems; position++) {
      const size = Math.min(1 + sizes.pick(random), options.ordinaryItems - items, largestOrdinary);
      const made = shelf(userIds[owner]!, position, size, random() < 0.7 ? 'public' : 'private', popular);
      items += made.stories.length;
      shelves.push(made);
    }
  }
  return shelves;
}

async function write(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/** Runs `COPY <target> FROM STDIN` fed by `lines` (text format, already escaped) in 1 MB chunks. */
async function copyLines(client: pg.PoolClient, target: string, lines: Iterable<string>): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${target} FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => stream.on('finish', resolve).on('error', reject));
  let buffer = '';
  for (const line of lines) {
    buffer += line;
    if (buffer.length > 1 << 20) {
      await write(stream, buffer);
      buffer = '';
    }
  }
  stream.end(buffer);
  await done;
}

const iso = (date: Date) => date.toISOString();

/**
 * The bookshelves schema: shelves (counts exact: every story is published), the known stories
 * (the service's copy of each shelved story, versioned by its date_modified) and the items; then
 * the id sequences moved past what was loaded. One transaction.
 */
async function loadShelves(pool: pg.Pool, shelves: readonly Shelf[]): Promise<number> {
  return withTransaction(pool, async (client) => {
    await copyLines(client, 'bookshelves (id, owner_id, name, description, privacy, color, position, num_items, num_stories, num_unread, date_created, date_modified)', function* () {
      for (const shelf of shelves) {
        const unread = shelf.read.filter((read) => !read).length;
        const modified = shelf.added.at(-1) ?? shelf.created;
        yield `${shelf.id}\t${shelf.ownerId}\t${shelf.name}\t\t${shelf.privacy}\t${shelf.color}\t${shelf.position}\t${shelf.stories.length}\t${shelf.stories.length}\t${unread}\t${iso(shelf.created)}\t${iso(modified)}\n`;
      }
    }());
    // The copy of every shelved story not known yet, as the service records it when an item is added.
    await client.query('CREATE TEMP TABLE seed_shelved (id bigint PRIMARY KEY) ON COMMIT DROP');
    await copyLines(client, 'seed_shelved (id)', function* () {
      const seen = new Set<number>();
      for (const shelf of shelves) {
        for (const story of shelf.stories) {
          if (seen.has(story)) continue;
          seen.add(story);
          yield `${story}\n`;
        }
      }
    }());
    await client.query(
      `INSERT INTO known_stories (id, author_id, published, version)
       SELECT s.id, s.author_id, s.published, s.date_modified FROM seed_shelved k JOIN ${STORIES_SCHEMA}.stories s ON s.id = k.id
       ON CONFLICT (id) DO NOTHING`,
    );
    let items = 0;
    await copyLines(client, 'bookshelf_items (id, bookshelf_id, story_id, read, date_added)', function* () {
      for (const shelf of shelves) {
        for (const [j, story] of shelf.stories.entries()) {
          items++;
          yield `${shelf.itemIds[j]}\t${shelf.id}\t${story}\t${shelf.read[j] ? 't' : 'f'}\t${iso(shelf.added[j]!)}\n`;
        }
      }
    }());
    await client.query("SELECT setval(pg_get_serial_sequence('bookshelves', 'id'), (SELECT max(id) FROM bookshelves))");
    await client.query("SELECT setval(pg_get_serial_sequence('bookshelf_items', 'id'), (SELECT max(id) FROM bookshelf_items))");
    return items;
  });
}

/**
 * The stories service's copy: each shelf as of its last change, and each item live and current
 * with its read flag as of the time it was added (what the consumer writes after
 * BookshelfCreated and BookshelfItemAdded), under the same ids.
 */
async function loadStoriesCopy(pool: pg.Pool, shelves: readonly Shelf[]): Promise<void> {
  await withTransaction(pool, async (client) => {
    await copyLines(client, 'bookshelves (id, owner_id, private, date_modified, event_time)', function* () {
      for (const shelf of shelves) {
        const modified = iso(shelf.added.at(-1) ?? shelf.created);
        yield `${shelf.id}\t${shelf.ownerId}\t${shelf.privacy === 'private' ? 't' : 'f'}\t${modified}\t${modified}\n`;
      }
    }());
    await copyLines(client, 'bookshelf_items (id, bookshelf_id, story_id, read, date_added, event_time, current)', function* () {
      for (const shelf of shelves) {
        for (const [j, story] of shelf.stories.entries()) {
          const added = iso(shelf.added[j]!);
          yield `${shelf.itemIds[j]}\t${shelf.id}\t${story}\t${shelf.read[j] ? 't' : 'f'}\t${added}\t${added}\tt\n`;
        }
      }
    }());
  });
}
