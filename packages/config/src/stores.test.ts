import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configProblems, databaseEnv, kafkaEnv, kafkaSettings, loadConfig, metricsEnv, redisEnv, redisSettings, refineKafkaEnv, refineRedisEnv } from './index.js';

const kafka = z.object(kafkaEnv).superRefine(refineKafkaEnv);
const redis = z.object(redisEnv).superRefine(refineRedisEnv);
const folder = mkdtempSync(join(tmpdir(), 'inkwell-config-'));
const caFile = join(folder, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const passwordFile = join(folder, 'password');
writeFileSync(passwordFile, 's3cret\n');


describe('kafkaEnv', () => {
  it('is plaintext without authentication by default, as locally', () => {
    expect(kafkaSettings(loadConfig(kafka, {}))).toEqual({ brokers: ['127.0.0.1:19092'] });
  });

  it('turns on TLS with the system CAs, or with a CA bundle read from a file', () => {
    expect(kafkaSettings(loadConfig(kafka, { KAFKA_BROKERS: 'a:9093, b:9093', KAFKA_SSL: 'true' }))).toEqual({ brokers: ['a:9093', 'b:9093'], ssl: {} });
    expect(kafkaSettings(loadConfig(kafka, { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: caFile })).ssl).toEqual({ ca: expect.stringContaining('BEGIN CERTIFICATE') });
  });

  it('authenticates with SASL, the password given or read from a file (trailing newline dropped)', () => {
    expect(kafkaSettings(loadConfig(kafka, { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'inkwell-users', KAFKA_SASL_PASSWORD: 'pw' })).sasl).toEqual({ mechanism: 'scram-sha-512', username: 'inkwell-users', password: 'pw' });
    expect(kafkaSettings(loadConfig(kafka, { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD_FILE: passwordFile })).sasl).toEqual({ mechanism: 'plain', username: 'u', password: 's3cret' });
  });

  it('refuses incomplete or contradictory settings, naming each variable', () => {
    expect(configProblems(kafka, { KAFKA_SASL_MECHANISM: 'gssapi' })[0]).toMatch(/^KAFKA_SASL_MECHANISM:/);
    expect(configProblems(kafka, { KAFKA_SASL_MECHANISM: 'plain' }).map((line) => line.split(':')[0]).sort()).toEqual(['KAFKA_SASL_PASSWORD', 'KAFKA_SASL_USERNAME']);
    expect(configProblems(kafka, { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_PASSWORD_FILE: passwordFile })).toEqual(['KAFKA_SASL_PASSWORD: set exactly one of KAFKA_SASL_PASSWORD and KAFKA_SASL_PASSWORD_FILE']);
    expect(configProblems(kafka, { KAFKA_SASL_USERNAME: 'u' })).toEqual(['KAFKA_SASL_USERNAME: needs KAFKA_SASL_MECHANISM']);
    expect(configProblems(kafka, { KAFKA_SSL_CA_FILE: caFile })).toEqual(['KAFKA_SSL_CA_FILE: needs KAFKA_SSL=true']);
    expect(configProblems(kafka, { KAFKA_SSL: 'yes' })[0]).toMatch(/^KAFKA_SSL:/);
    expect(configProblems(kafka, { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: join(folder, 'missing.pem') })[0]).toMatch(/^KAFKA_SSL_CA_FILE: cannot read .*missing\.pem: ENOENT$/);
  });
});

describe('redisEnv', () => {
  it('keeps a plain URL as it is, user and password included', () => {
    expect(redisSettings(loadConfig(redis, {}))).toEqual({ url: 'redis://127.0.0.1:6379' });
    expect(redisSettings(loadConfig(redis, { REDIS_URL: 'redis://inkwell-users:pw@redis:6379/2' }))).toEqual({ url: 'redis://inkwell-users:pw@redis:6379/2' });
  });

  it('reads the CA bundle of a rediss:// server, and refuses one without TLS', () => {
    expect(redisSettings(loadConfig(redis, { REDIS_URL: 'rediss://u:p@redis:6380', REDIS_TLS_CA_FILE: caFile }))).toEqual({ url: 'rediss://u:p@redis:6380', tlsCa: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(configProblems(redis, { REDIS_URL: 'redis://redis:6379', REDIS_TLS_CA_FILE: caFile })).toEqual(['REDIS_TLS_CA_FILE: needs a rediss:// REDIS_URL']);
    expect(configProblems(redis, { REDIS_URL: 'http://redis:6379' })[0]).toMatch(/^REDIS_URL:/);
  });
});

describe('databaseEnv and metricsEnv', () => {
  it('makes the migration URL optional and the metrics port default, 0 meaning off', () => {
    const schema = z.object({ ...databaseEnv, ...metricsEnv('USERS', 9151) });
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://inkwell_users@db/inkwell' })).toEqual({ DATABASE_URL: 'postgres://inkwell_users@db/inkwell', DATABASE_POOL_SIZE: 10, USERS_METRICS_PORT: 9151 });
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://a@db/x', DATABASE_MIGRATION_URL: 'postgres://b@db/x', USERS_METRICS_PORT: '0' })).toMatchObject({ DATABASE_MIGRATION_URL: 'postgres://b@db/x', USERS_METRICS_PORT: 0 });
    expect(configProblems(schema, { DATABASE_URL: 'postgres://a@db/x', DATABASE_MIGRATION_URL: 'mysql://b@db/x' })[0]).toMatch(/^DATABASE_MIGRATION_URL:/);
  });
});
