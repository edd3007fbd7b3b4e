import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * ULIDs: 26 characters that sort as strings in creation order (CONTRACT.md section 4). Within one
 * millisecond the random part is incremented, so ids made by one container stay strictly ordered.
 */
export const ulidFactory = (now: () => number = Date.now) => {
  let lastTime = -1;
  let lastRandom: number[] = [];

  return (): string => {
    const time = now();
    if (time <= lastTime) {
      lastRandom = increment(lastRandom);
    } else {
      lastTime = time;
      lastRandom = [...randomBytes(16)].map((byte) => byte % 32).slice(0, 16);
    }
    return encodeTime(Math.max(time, lastTime)) + lastRandom.map((digit) => ALPHABET[digit]).join('');
  };
};

const encodeTime = (time: number): string => {
  let out = '';
  for (let i = 0, rest = time; i < 10; i += 1, rest = Math.floor(rest / 32)) out = ALPHABET[rest % 32] + out;
  return out;
};

const increment = (digits: number[]): number[] => {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i -= 1) {
    if (next[i]! < 31) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  throw new Error('ULID random part overflowed within one millisecond');
};

export const newLeadId = ulidFactory();
