/**
 * The Sha256 that `@smithy/signature-v4` wants (`@smithy/types` Checksum), on node:crypto: HMAC when
 * given a secret. Shared by the local admin API's signature check and the Lambda functions' one signed
 * call to Secrets Manager (shared/person-keyring.ts), which carry no AWS crypto package of their own.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** The Sha256 the signer wants (`@smithy/types` Checksum), on node:crypto: HMAC when given a secret. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): string | Buffer =>
  typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

export class NodeSha256 {
  readonly #secret: string | Buffer | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytesOf(secret);
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
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
}
