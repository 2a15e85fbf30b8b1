import { fileURLToPath } from 'node:url';

/** The schema the stories service owns. */
export const STORIES_SCHEMA = 'stories';

/** The folder of its numbered migrations. */
export const STORIES_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));
