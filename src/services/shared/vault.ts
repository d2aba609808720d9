import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Identity at rest: AES-256-GCM ciphertext for applicant data, and keyed HMAC-SHA256
 * fingerprints for what matching needs (email, reference, document number, national id),
 * so nothing matchable is stored in plaintext. Both keys derive from one master key.
 */
export class Vault {
  private readonly encryptionKey: Buffer;
  private readonly fingerprintKey: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('IDENTITY_ENCRYPTION_KEY must be 32 bytes (base64)');
    this.encryptionKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'idv identity encryption', 32));
    this.fingerprintKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'idv identity fingerprint', 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url). */
  encrypt(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(
      '.',
    );
  }

  /** Throws when the ciphertext was tampered with or written under another key. */
  decrypt<T>(sealed: string): T {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unreadable identity ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /** Keyed digest of a request body (Idempotency-Key rows), in its own namespace. */
  requestDigest(canonicalBody: string): string {
    return createHmac('sha256', this.fingerprintKey).update(`idempotency\u0000${canonicalBody}`).digest('hex');
  }

  /** Keyed fingerprint of a normalised value; `kind` separates namespaces (email vs document). */
  fingerprint(kind: 'email' | 'reference' | 'document' | 'national_id' | 'holder', value: string): string {
    return createHmac('sha256', this.fingerprintKey).update(`${kind}\u0000${value}`).digest('hex');
  }
}

/** Email as matched: trimmed and lower-cased (lookup and filters ignore case and surrounding whitespace). */
export const normaliseEmailForMatch = (email: string): string => email.trim().toLowerCase();

/** Document and national-id numbers as matched: upper-case letters and digits only. */
export const normaliseDocumentNumber = (value: string): string => value.toUpperCase().replace(/[^0-9A-Z]/g, '');

/**
 * The master key: IDENTITY_ENCRYPTION_KEY (base64, 32 bytes) when the operator sets it; on
 * embedded defaults a key generated once under the data folder (mode 600).
 */
export function loadMasterKey(
  configured: string | undefined,
  dataDir: string,
  logger: { warn(message: string): void },
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, 'identity.key');
  if (fs.existsSync(file)) return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  logger.warn(`generated an identity encryption key in ${file}; set IDENTITY_ENCRYPTION_KEY in production`);
  return key;
}
