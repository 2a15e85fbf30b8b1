import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (docs/api/webhooks.md, "Signatures"). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Encrypts signing secrets for storage (docs/api/webhooks.md, "Stored secrets"): AES-256-GCM
 * with the key of WEBHOOK_SECRET_KEY, a random 96-bit IV per value, stored as
 * version ‖ IV ‖ tag ‖ ciphertext. HMAC signing needs the raw secret, so it cannot be hashed;
 * a copy of the database alone does not reveal it.
 */
export class SecretBox {
  readonly #key: Buffer;

  /** `key`: 32 bytes. */
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
    this.#key = key;
  }

  seal(secret: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const encrypted = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), encrypted]);
  }

  /** The secret of a sealed value; throws when it was not sealed with this key. */
  open(sealed: Buffer): string {
    if (sealed[0] !== VERSION) throw new Error('unknown sealed secret version');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
