import { fileURLToPath } from 'node:url';

/** The schema the users service owns. */
export const USERS_SCHEMA = 'users';

/** The folder of its numbered migrations. */
export const USERS_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));
