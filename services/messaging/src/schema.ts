import { fileURLToPath } from 'node:url';

/** The one schema the messaging service owns. */
export const MESSAGING_SCHEMA = 'messaging';

/** The folder of the messaging migrations (for main.ts and the data generator). */
export const MESSAGING_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));
