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

/**
 * A ULID for a given millisecond (rejection records: the id carries the record's `created_at`, so the
 * store finds the item from the id alone). `seed`, when given, makes the random part deterministic
 * (one suppressed counter per key and minute).
 */
export const ulidAt = (time: number, seed?: Buffer): string => {
  const random = [...(seed ?? randomBytes(16))].slice(0, 16).map((byte) => ALPHABET[byte % 32]).join('');
  return encodeTime(time) + random;
};

/** The millisecond a ULID was made at; undefined for text that is not a ULID. */
export const ulidTime = (id: string): number | undefined => {
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) return undefined;
  let time = 0;
  for (const char of id.slice(0, 10)) time = time * 32 + ALPHABET.indexOf(char);
  return time <= 8_640_000_000_000_000 ? time : undefined;
};

/**
 * ULIDs for given milliseconds, strictly ordered within one millisecond (the random part is
 * incremented), so records made by one container in the same millisecond keep their order.
 */
export const ulidsAt = () => {
  let lastTime = -1;
  let lastRandom: number[] = [];
  return (time: number): string => {
    if (time === lastTime) {
      lastRandom = increment(lastRandom);
    } else {
      lastTime = time;
      // The top bit clear leaves room to increment without overflowing.
      lastRandom = [...randomBytes(16)].map((byte, i) => (i === 0 ? byte % 16 : byte % 32));
    }
    return encodeTime(time) + lastRandom.map((digit) => ALPHABET[digit]).join('');
  };
};
