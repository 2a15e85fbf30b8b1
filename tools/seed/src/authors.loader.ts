import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * The password hash of generated users: not a valid hash, so nobody can sign in as one of them
 * (the users service treats a malformed hash as a mismatch). Benchmarks sign in as a test user.
 */
export const SEED_PASSWORD_HASH = '!generated-user-sign-in-disabled';

const FIRST = ['Silver', 'Quiet', 'Amber', 'Midnight', 'Paper', 'Velvet', 'Iron', 'Willow', 'Scarlet', 'Lantern', 'Hollow', 'Ember', 'Winter', 'Ink'];
const SECOND = ['Quill', 'Fox', 'Raven', 'Moth', 'Harbour', 'Sparrow', 'Thistle', 'Owl', 'Heron', 'Meadow', 'Pen', 'Wren', 'Lark', 'Tide'];

/**
 * Creates `count` users in the users schema with one COPY (explicit ids after the current
 * maximum, then the id sequence moved past them) and returns their ids. Names are pen names made
 * unique by their id; e-mail addresses use the reserved `.invalid` domain.
 */
export async function loadAuthors(pool: pg.Pool, count: number, seed: number): Promise<string[]> {
  const { rows } = await pool.query<{ next: string }>('SELECT coalesce(max(id), 0) + 1 AS next FROM users');
  const first = Number(rows[0]!.next);
  const now = Date.now();
  const client = await pool.connect();
  try {
    const copy = client.query(copyFrom('COPY users (id, name, email, password_hash, bio, bio_html, date_joined) FROM STDIN'));
    const done = new Promise<void>((resolve, reject) => copy.on('finish', resolve).on('error', reject));
    let buffer = '';
    for (let i = 0; i < count; i++) {
      const id = first + i;
      const name = `${FIRST[(id * 7 + seed) % FIRST.length]}${SECOND[(id * 13 + seed) % SECOND.length]}${id}`;
      const joined = new Date(now - ((id * 2654435761 + seed) % 2000) * 86_400_000 - 7 * 365 * 86_400_000 * ((i % 3) / 10));
      buffer += `${id}\t${name}\tseed-${id}@users.inkwell.invalid\t${SEED_PASSWORD_HASH}\t\t\t${joined.toISOString()}\n`;
      if (buffer.length > 1 << 20) {
        if (!copy.write(buffer)) await once(copy, 'drain');
        buffer = '';
      }
    }
    copy.end(buffer);
    await done;
    await client.query("SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))");
  } finally {
    client.release();
  }
  return Array.from({ length: count }, (_, i) => String(first + i));
}
