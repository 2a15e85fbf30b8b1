import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

const keyId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash and underscore, at most 64');
const issuerName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'a lower-case process name such as gateway or users');

/** PEM text as given; `\n` written as two characters (one-line env files) becomes a newline. */
function pemText(value: string): string {
  return value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : value;
}

/** A config string holding an Ed25519 key, parsed by `parse` (createPrivateKey or createPublicKey); `expected` names the form it must have. */
function ed25519Key(parse: (pem: string) => KeyObject, expected: string) {
  return z.string().transform((value, ctx): KeyObject => {
    try {
      const key = parse(pemText(value));
      if (key.asymmetricKeyType === 'ed25519') return key;
      ctx.addIssue({ code: 'custom', message: `an Ed25519 key is required, got ${key.asymmetricKeyType ?? 'unknown'}` });
    } catch {
      ctx.addIssue({ code: 'custom', message: `not a ${expected}` });
    }
    return z.NEVER;
  });
}

const privateKey = ed25519Key(createPrivateKey, 'PEM (PKCS#8) private key');
const publicKey = ed25519Key(createPublicKey, 'PEM (SPKI) public key');

const trustedKeyList = z.record(issuerName, z.array(z.object({ kid: keyId, publicKey })).min(1));

const trustedKeys = z
  .string()
  .transform((value, ctx): unknown => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(trustedKeyList)
  .transform((issuers) => {
    const map = new Map<string, ReadonlyMap<string, KeyObject>>();
    for (const [issuer, keys] of Object.entries(issuers)) map.set(issuer, new Map(keys.map((key) => [key.kid, key.publicKey])));
    return map as TrustedKeyMap;
  });

/**
 * Variables of the signed caller assertions every process that makes or serves gRPC calls needs
 * (docs/api/foundation.md, "Internal calls"), all required: this process's Ed25519 private key
 * as PEM text (PKCS#8; `\n` may be written as two characters), the key id its public key is
 * trusted under, and the trusted public keys of every issuer as JSON
 * `{"gateway":[{"kid":"gateway-2025-06","publicKey":"-----BEGIN PUBLIC KEY-----\n…"}], …}`
 * (several keys per issuer during a rotation). Spread into a process's schema and pass
 * {@link internalAuthSettings} of the result to `createInternalAuth` in main.ts.
 */
export const internalAuthEnv = {
  INTERNAL_AUTH_PRIVATE_KEY: privateKey,
  INTERNAL_AUTH_KEY_ID: keyId,
  INTERNAL_AUTH_TRUSTED_KEYS: trustedKeys,
};

type TrustedKeyMap = ReadonlyMap<string, ReadonlyMap<string, KeyObject>>;

/**
 * Picks the internal-auth settings out of a parsed configuration that spread
 * {@link internalAuthEnv}, in the shape `createInternalAuth` (@inkwell/grpc) takes.
 */
export function internalAuthSettings(config: { INTERNAL_AUTH_PRIVATE_KEY: KeyObject; INTERNAL_AUTH_KEY_ID: string; INTERNAL_AUTH_TRUSTED_KEYS: TrustedKeyMap }): { keyId: string; privateKey: KeyObject; trustedKeys: TrustedKeyMap } {
  return { keyId: config.INTERNAL_AUTH_KEY_ID, privateKey: config.INTERNAL_AUTH_PRIVATE_KEY, trustedKeys: config.INTERNAL_AUTH_TRUSTED_KEYS };
}
