import { describe, expect, it } from '@jest/globals';
import { maskMobile, redact } from '../../shared/log.ts';

describe('contact details in free text bound for a log line', () => {
  it('removes numbers and e-mails whole: no last digits, no domain, no first letter', () => {
    const text = redact('Item {mobile: 9876543210, email: asha@example.com} rejected');
    expect(text).toMatch(/^Item \{mobile: \[number\], email: \[e-mail\]/);
    expect(text).not.toContain('3210');
    expect(text).not.toContain('example.com');
  });
});

describe("a rejection record's trace of the mobile", () => {
  it('keeps the last four digits of a mobile number (in the record, which erasure reaches)', () => {
    expect(maskMobile('9876543210')).toBe('******3210');
  });
});
