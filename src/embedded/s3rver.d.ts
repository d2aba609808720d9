declare module '@20minutes/s3rver' {
  import type { AddressInfo } from 'node:net';
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: unknown[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    reset(): void;
  }
}

declare module 'async-exit-hook';

declare module '@20minutes/s3rver/lib/models/account.js' {
  /** s3rver's process-wide registry of key pairs (the dummy account signs every request it accepts). */
  export default class AWSAccount {
    static DUMMY_ACCOUNT: AWSAccount;
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
}
