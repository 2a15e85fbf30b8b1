import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openServiceDatabase, type ServiceDatabaseOptions } from '@inkwell/events';

/** The schema the webhooks service owns. */
export const WEBHOOKS_SCHEMA = 'webhooks';

/** The folder of its numbered migrations. */
export const WEBHOOKS_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openWebhooksDatabase: the connection settings of {@link openServiceDatabase}. */
export type WebhooksDatabaseOptions = Omit<ServiceDatabaseOptions, 'service' | 'schema' | 'migrations'>;

/** A pool of the webhooks schema, migrated to the latest version (with the outbox tables); used by the tests. */
export function openWebhooksDatabase(options: WebhooksDatabaseOptions): Promise<pg.Pool> {
  return openServiceDatabase({ ...options, service: 'webhooks', schema: WEBHOOKS_SCHEMA, migrations: WEBHOOKS_MIGRATIONS });
}
