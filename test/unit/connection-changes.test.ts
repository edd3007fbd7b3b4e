/**
 * A delivery received on its connection as it is now (shared/domain/connection-cache.ts receivedAtOnce):
 * a write refused because the connection changed since it was read is run once more on a fresh read,
 * and a connection that changed again in between is a 503 the platform retries, never a lead in the
 * old project or a 500.
 */
import { describe, expect, it } from '@jest/globals';
import { receivedAtOnce } from '../../shared/domain/connection-cache.ts';
import { ConnectionChangedError, ServiceUnavailableError } from '../../shared/domain/errors.ts';

describe('a delivery whose connection changed since it was read', () => {
  it('is received once more on a fresh read, after the cached connection is forgotten', async () => {
    const attempts: boolean[] = [];
    let forgotten = 0;
    const outcome = await receivedAtOnce(
      async (afresh) => {
        attempts.push(afresh);
        if (!afresh) throw new ConnectionChangedError('call_number', '8047181234');
        return 'stored in the new project';
      },
      () => void (forgotten += 1),
    );
    expect(outcome).toBe('stored in the new project');
    expect(attempts).toEqual([false, true]);
    expect(forgotten).toBe(1);
  });

  it('changed again before the second write: 503 with Retry-After, tried no third time', async () => {
    let attempts = 0;
    const received = receivedAtOnce(
      async () => {
        attempts += 1;
        throw new ConnectionChangedError('google_form', '40000000001');
      },
      () => undefined,
    );
    await expect(received).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(received).rejects.toMatchObject({ status: 503, retryAfterSeconds: 1 });
    expect(attempts).toBe(2);
  });

  it('any other failure is not retried: it is the answer', async () => {
    let attempts = 0;
    const failure = new Error('database unavailable');
    await expect(
      receivedAtOnce(
        async () => {
          attempts += 1;
          throw failure;
        },
        () => undefined,
      ),
    ).rejects.toBe(failure);
    expect(attempts).toBe(1);
  });
});
