/**
 * What other workspaces may use of the bookshelves service: its schema, migrations and a migrated
 * pool (e.g. for seeding or benchmarks). The service itself runs from main.ts.
 */
export { BOOKSHELVES_SCHEMA, BOOKSHELVES_MIGRATIONS, openBookshelvesDatabase, type BookshelvesDatabaseOptions } from './schema.js';
