/**
 * The Sha256 that `@smithy/signature-v4` wants (`@smithy/types` Checksum), on node:crypto: HMAC when
 * given a secret. The DynamoDB client signs with it (shared/dynamodb/client.ts), and so do the local
 * admin API's signature check and the Lambda functions' one signed call to Secrets Manager
 * (shared/person-keyring.ts), which carry no AWS crypto package of their own.
 *
 * Why not the SDK's own: Node 24's `createHmac` with a Buffer or Uint8Array key costs 5 to 10 times
 * one with a string or a `KeyObject` key (docs/performance.md), and SigV4 hands its derived signing key
 * over as a Uint8Array on every request. A byte secret becomes a `KeyObject` here, made anew for each
 * HMAC (not kept per buffer: a caller may change a buffer's bytes, and the saving would be under 2 µs),
 * so the signature's HMAC takes the fast path. A string secret (the secret access key, the first link
 * of the key chain) is already on it.
 */
import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): string | Buffer =>
  typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** A byte secret as a key object (createSecretKey copies the bytes: 1 to 2 µs, against 8 to 10 µs more for a Buffer key's HMAC). */
const keyOf = (secret: SourceData): string | KeyObject => (typeof secret === 'string' ? secret : createSecretKey(bytesOf(secret) as Buffer));

export class NodeSha256 {
  readonly #key: string | KeyObject | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#key = secret === undefined ? undefined : keyOf(secret);
    this.#hash = this.#fresh();
  }

  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.#key === undefined ? createHash('sha256') : createHmac('sha256', this.#key);
  }
}
