/**
 * What other workspaces use of the users service: its schema and migrations (the data generator
 * in tools/seed). The service runs from main.ts.
 */
export { USERS_SCHEMA, USERS_MIGRATIONS } from './schema.js';
