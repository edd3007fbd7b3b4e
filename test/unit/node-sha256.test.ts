import { describe, expect, it } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../shared/aws/node-sha256.ts';

const digestOf = async (secret: string | Uint8Array | undefined, data: string) => {
  const hash = new NodeSha256(secret);
  hash.update(data);
  return Buffer.from(await hash.digest()).toString('hex');
};

describe('the SHA-256 the service signs AWS requests with', () => {
  it('hashes without a secret and HMACs with a string or a byte secret as node:crypto does', async () => {
    expect(await digestOf(undefined, 'lead')).toBe(createHash('sha256').update('lead').digest('hex'));
    expect(await digestOf('secret', 'lead')).toBe(createHmac('sha256', 'secret').update('lead').digest('hex'));
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await digestOf(bytes, 'lead')).toBe(createHmac('sha256', bytes).update('lead').digest('hex'));
    expect(await digestOf(bytes.subarray(2, 6), 'lead')).toBe(createHmac('sha256', Buffer.from([3, 4, 5, 6])).update('lead').digest('hex'));
  });

  it('uses the bytes a reused secret buffer holds now, not the ones it held when first seen', async () => {
    const bytes = new Uint8Array([9, 9, 9, 9]);
    const before = await digestOf(bytes, 'lead');
    bytes.set([1, 1, 1, 1]);
    expect(await digestOf(bytes, 'lead')).toBe(createHmac('sha256', Buffer.from([1, 1, 1, 1])).update('lead').digest('hex'));
    expect(await digestOf(bytes, 'lead')).not.toBe(before);
  });

  it('gives SigV4 the same signature as node:crypto without a cache, request after request', async () => {
    const request = {
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.ap-south-1.amazonaws.com',
      path: '/',
      headers: { host: 'dynamodb.ap-south-1.amazonaws.com', 'x-amz-target': 'DynamoDB_20120810.TransactWriteItems' },
      body: '{"TransactItems":[]}',
    };
    const signer = (sha256: typeof NodeSha256 | typeof NodeSha256Reference) =>
      new SignatureV4({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }, region: 'ap-south-1', service: 'dynamodb', sha256 });
    const signingDate = new Date('2026-11-27T08:00:00Z');
    const ours = signer(NodeSha256);
    const reference = signer(NodeSha256Reference);
    for (let i = 0; i < 3; i += 1) {
      const [a, b] = await Promise.all([ours.sign(structuredClone(request), { signingDate }), reference.sign(structuredClone(request), { signingDate })]);
      expect(a.headers.authorization).toBe(b.headers.authorization);
    }
  });
});

/** node:crypto without any cache: what the signature must equal. */
class NodeSha256Reference {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : Buffer.from(secret as Uint8Array));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(typeof data === 'string' ? data : Buffer.from(data as Uint8Array));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}
