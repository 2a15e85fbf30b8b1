import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configProblems, internalAuthEnv, internalAuthSettings, loadConfig } from './index.js';

const schema = z.object({ ...internalAuthEnv });
const gateway = generateKeyPairSync('ed25519');
const next = generateKeyPairSync('ed25519');
const users = generateKeyPairSync('ed25519');
const pem = (key: { export(options: { type: 'pkcs8' | 'spki'; format: 'pem' }): string | Buffer }, type: 'pkcs8' | 'spki') => String(key.export({ type, format: 'pem' }));

const trusted = JSON.stringify({
  gateway: [
    { kid: 'gateway-1', publicKey: pem(gateway.publicKey, 'spki') },
    { kid: 'gateway-2', publicKey: pem(next.publicKey, 'spki') },
  ],
  users: [{ kid: 'users-1', publicKey: pem(users.publicKey, 'spki') }],
});

const problems = (env: Record<string, string>): string[] => configProblems(schema, env);

describe('internalAuthEnv', () => {
  it('parses the private key, its id and every trusted key of every issuer', () => {
    const settings = internalAuthSettings(loadConfig(schema, { INTERNAL_AUTH_PRIVATE_KEY: pem(gateway.privateKey, 'pkcs8'), INTERNAL_AUTH_KEY_ID: 'gateway-1', INTERNAL_AUTH_TRUSTED_KEYS: trusted }));

    expect(settings.keyId).toBe('gateway-1');
    expect(settings.privateKey.equals(gateway.privateKey)).toBe(true);
    expect([...settings.trustedKeys.keys()]).toEqual(['gateway', 'users']);
    expect([...(settings.trustedKeys.get('gateway')?.keys() ?? [])]).toEqual(['gateway-1', 'gateway-2']);
    expect(settings.trustedKeys.get('gateway')?.get('gateway-2')?.equals(next.publicKey)).toBe(true);
  });

  it('accepts a PEM whose newlines are written as \\n on one line', () => {
    const oneLine = pem(gateway.privateKey, 'pkcs8').replace(/\n/g, '\\n');
    const config = loadConfig(schema, { INTERNAL_AUTH_PRIVATE_KEY: oneLine, INTERNAL_AUTH_KEY_ID: 'gateway-1', INTERNAL_AUTH_TRUSTED_KEYS: trusted });

    expect(config.INTERNAL_AUTH_PRIVATE_KEY.equals(gateway.privateKey)).toBe(true);
  });

  it('requires all three variables', () => {
    expect(problems({}).map((line) => line.split(':')[0]).sort()).toEqual(['INTERNAL_AUTH_KEY_ID', 'INTERNAL_AUTH_PRIVATE_KEY', 'INTERNAL_AUTH_TRUSTED_KEYS']);
  });

  it('refuses a key that is not Ed25519, text that is no key, bad JSON and an issuer without keys', () => {
    const x25519 = generateKeyPairSync('x25519');
    const base = { INTERNAL_AUTH_KEY_ID: 'gateway-1', INTERNAL_AUTH_TRUSTED_KEYS: trusted };

    expect(problems({ ...base, INTERNAL_AUTH_PRIVATE_KEY: pem(x25519.privateKey, 'pkcs8') })).toEqual(['INTERNAL_AUTH_PRIVATE_KEY: an Ed25519 key is required, got x25519']);
    expect(problems({ ...base, INTERNAL_AUTH_PRIVATE_KEY: 'secret' })).toEqual(['INTERNAL_AUTH_PRIVATE_KEY: not a PEM (PKCS#8) private key']);
    const key = { INTERNAL_AUTH_PRIVATE_KEY: pem(gateway.privateKey, 'pkcs8'), INTERNAL_AUTH_KEY_ID: 'gateway-1' };
    expect(problems({ ...key, INTERNAL_AUTH_TRUSTED_KEYS: '{gateway' })).toEqual(['INTERNAL_AUTH_TRUSTED_KEYS: not JSON']);
    expect(problems({ ...key, INTERNAL_AUTH_TRUSTED_KEYS: '{"gateway":[]}' })[0]).toMatch(/^INTERNAL_AUTH_TRUSTED_KEYS\.gateway:/);
    expect(problems({ ...key, INTERNAL_AUTH_TRUSTED_KEYS: JSON.stringify({ gateway: [{ kid: 'g', publicKey: pem(x25519.publicKey, 'spki') }] }) })[0]).toMatch(/^INTERNAL_AUTH_TRUSTED_KEYS\.gateway\.0\.publicKey: an Ed25519 key is required/);
  });
});
