import { describe, expect, it } from '@jest/globals';
import { maskEmail, maskMobile, redact } from '../../shared/log.ts';

describe('masking contact details for logs', () => {
  it('keeps the last four digits of a mobile number', () => {
    expect(maskMobile('9876543210')).toBe('******3210');
  });

  it('keeps the first letter and the domain of an e-mail', () => {
    expect(maskEmail('asha.verma@example.com')).toBe('a***@example.com');
  });

  it('masks numbers and e-mails inside free text', () => {
    const text = redact('Item {mobile: 9876543210, email: asha@example.com} rejected');
    expect(text).not.toContain('9876543210');
    expect(text).not.toContain('asha@example.com');
    expect(text).toContain('******3210');
    expect(text).toContain('a***@example.com');
  });
});
