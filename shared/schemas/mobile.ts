/**
 * Indian mobile numbers as senders type them: "+91 98765 43210", "0091-98765-43210", "09876543210",
 * or in Devanagari or full-width digits from forms in Indian languages. CONTRACT.md section 2.
 */

const ALLOWED = /^[\p{Nd} +\-().]+$/u;
const DIGIT = /^\p{Nd}$/u;
const MATH_DIGITS_ZERO = 0x1d7ce;

/** Reads every Unicode decimal digit (Devanagari ९, full-width ９, ...) as its ASCII digit. */
export const toAsciiDigits = (text: string): string =>
  text.replace(/\p{Nd}/gu, (digit) => {
    const code = digit.codePointAt(0)!;
    if (code <= 0x39) return digit;
    // Unicode lays decimal digits out in runs of ten starting at zero, so a digit's value is its
    // offset from the run's zero: the first digit code point after a non-digit. Only the
    // mathematical digits run on for fifty code points in a row.
    if (code >= MATH_DIGITS_ZERO && code < MATH_DIGITS_ZERO + 50) return String((code - MATH_DIGITS_ZERO) % 10);
    let zero = code;
    while (zero > code - 9 && DIGIT.test(String.fromCodePoint(zero - 1))) zero -= 1;
    return String(code - zero);
  });

/**
 * The 10-digit number, or undefined when the text is not an Indian mobile number: only digits and
 * `space + - ( ) .`, 10 to 15 digits in all, the last 10 starting with 6, 7, 8 or 9.
 */
export const normaliseIndianMobile = (text: string): string | undefined => {
  if (!ALLOWED.test(text)) return undefined;
  const digits = toAsciiDigits(text).replace(/\D/g, '');
  if (digits.length < 10 || digits.length > 15) return undefined;
  const mobile = digits.slice(-10);
  return /^[6-9]/.test(mobile) ? mobile : undefined;
};
