import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AssertionSigner, AssertionVerifier, type GrpcClientOptions, type TrustedKeys } from '@inkwell/grpc';

/** Every process of a system that makes or serves gRPC calls: its issuer name (docs/api/foundation.md, "Internal calls"). */
export const ISSUERS: readonly string[] = ['gateway', 'users', 'stories', 'bookshelves', 'blog', 'messaging', 'webhooks'];

interface IssuerKey {
  keyId: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * One Ed25519 key pair per issuer, every public key trusted by every verifier it makes: the
 * internal-auth keys of a test system or of an in-process test. Test-only keys: production keys
 * come from each process's configuration.
 */
export class KeyRing {
  readonly #keys: ReadonlyMap<string, IssuerKey>;

  private constructor(keys: ReadonlyMap<string, IssuerKey>) {
    this.#keys = keys;
  }

  /** Fresh in-memory keys for `issuers` (default: every process of a system). */
  static generate(issuers: readonly string[] = ISSUERS): KeyRing {
    return new KeyRing(new Map(issuers.map((issuer) => [issuer, issuerKey(issuer, generateKeyPairSync('ed25519').privateKey)])));
  }

  /**
   * The keys kept in `directory` (one `<issuer>.pem`, PKCS#8), creating the missing ones. Safe
   * when several test processes do it at once: a key file appears atomically and the first one
   * written wins.
   */
  static async load(directory: string, issuers: readonly string[] = ISSUERS): Promise<KeyRing> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const keys = new Map<string, IssuerKey>();
    for (const issuer of issuers) keys.set(issuer, issuerKey(issuer, await loadOrCreateKey(join(directory, `${issuer}.pem`))));
    return new KeyRing(keys);
  }

  /** The trusted-key map of every issuer of this ring. */
  get trustedKeys(): TrustedKeys {
    return new Map([...this.#keys].map(([issuer, key]) => [issuer, new Map([[key.keyId, key.publicKey]])]));
  }

  /** Signs calls as `issuer`. */
  signer(issuer: string): AssertionSigner {
    const key = this.#key(issuer);
    return new AssertionSigner({ issuer, keyId: key.keyId, privateKey: key.privateKey });
  }

  /** Verifies calls addressed to `audience`, trusting every issuer of this ring. */
  verifier(audience: string): AssertionVerifier {
    return new AssertionVerifier({ audience, trustedKeys: this.trustedKeys });
  }

  /** createGrpcClient options that sign every call as `issuer` (default `gateway`). */
  clientOptions(issuer = 'gateway'): Pick<GrpcClientOptions, 'signer'> {
    return { signer: this.signer(issuer) };
  }

  /** The INTERNAL_AUTH_* variables of a process started as `issuer` (docs/api/foundation.md, "Internal calls"). */
  env(issuer: string): Record<string, string> {
    const key = this.#key(issuer);
    const trusted = Object.fromEntries([...this.#keys].map(([name, { keyId, publicKey }]) => [name, [{ kid: keyId, publicKey: pem(publicKey, 'spki') }]]));
    return {
      INTERNAL_AUTH_PRIVATE_KEY: pem(key.privateKey, 'pkcs8'),
      INTERNAL_AUTH_KEY_ID: key.keyId,
      INTERNAL_AUTH_TRUSTED_KEYS: JSON.stringify(trusted),
    };
  }

  #key(issuer: string): IssuerKey {
    const key = this.#keys.get(issuer);
    if (key === undefined) throw new Error(`the key ring has no key of issuer ${issuer}`);
    return key;
  }
}

/** The key id is derived from the public key, so a replaced key file never reuses an id. */
function issuerKey(issuer: string, privateKey: KeyObject): IssuerKey {
  const publicKey = createPublicKey(privateKey);
  const fingerprint = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 12);
  return { keyId: `${issuer}-${fingerprint}`, privateKey, publicKey };
}

async function loadOrCreateKey(file: string): Promise<KeyObject> {
  try {
    return createPrivateKey(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const candidate = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(candidate, pem(generateKeyPairSync('ed25519').privateKey, 'pkcs8'), { mode: 0o600 });
  try {
    await link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(candidate, { force: true });
  }
  return createPrivateKey(await readFile(file, 'utf8'));
}

function pem(key: KeyObject, type: 'pkcs8' | 'spki'): string {
  return String(key.export({ type, format: 'pem' }));
}
