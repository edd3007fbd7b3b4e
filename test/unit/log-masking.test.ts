import { describe, expect, it } from '@jest/globals';
import { maskMobile, redact } from '../../shared/log.ts';
import { rejectionOf } from '../../shared/domain/submissions.ts';

describe('contact details in free text bound for a log line', () => {
  it('removes numbers and e-mails whole: no last digits, no domain, no first letter', () => {
    const text = redact('Item {mobile: 9876543210, email: asha@example.com} rejected');
    expect(text).toMatch(/^Item \{mobile: \[number\], email: \[e-mail\]/);
    expect(text).not.toContain('3210');
    expect(text).not.toContain('example.com');
  });

  it.each([
    ['a plain number', '9876543210'],
    ['a spaced number', '98765 43210'],
    ['a spaced number after +91', '+91 98765 43210'],
    ['a dashed number', '+91-98765-43210'],
    ['a dashed number after 0091', '0091-98765-43210'],
    ['a number after a bracketed +91', '(+91) 98765 43210'],
    ['a number with brackets inside', '+91 (98765) 43210'],
    ['a dotted number', '98765.43210'],
    ['a dotted number after +91', '+91.98765.43210'],
    ['a number mixing every separator', '+91 (987) 654-32.10'],
    ['a number in Devanagari digits', '+९१ ९८७६५ ४३२१०'],
    ['a number in full-width digits', '９８７６５ ４３２１０'],
  ])('removes %s whole, leaving no digit of it', (_case, number) => {
    const text = redact(`ConditionalCheckFailed for {mobile: ${number}} at key`);
    expect(text).toContain('[number]');
    expect(text).not.toMatch(/\p{Nd}/u);
    expect(text).toMatch(/^ConditionalCheckFailed for \{mobile: \(?\[number\]\} at key$/);
  });

  it('leaves short numbers of a message alone (a status, a count, a port)', () => {
    expect(redact('status 503 after 3 attempts on 127.0.0.1:8000')).toBe('status 503 after 3 attempts on 127.0.0.1:8000');
  });
});

describe("a rejection record's trace of the mobile", () => {
  it('keeps the last four digits of a mobile number (in the record, which erasure reaches)', () => {
    expect(maskMobile('9876543210')).toBe('******3210');
  });

  it.each([
    ['a foreign number', '+1 202 555 0100'],
    ['a landline', '011-2345-6789'],
    ['too few digits', '5550100'],
  ])('keeps no digit of %s, which names no one that an erasure could find', (_case, mobile_number) => {
    const record = rejectionOf('website', { reason: 'validation', message: 'bad', fields: {} }, { requestId: 'r1', body: { mobile_number, name: 'Asha' } });
    expect(record).not.toHaveProperty('mobile');
    expect(record.person).toBeUndefined();
  });

  it('keeps the last four digits of a mobile that names the person, found as section 2 reads it', () => {
    const record = rejectionOf('website', { reason: 'validation', message: 'bad', fields: {} }, { requestId: 'r1', body: { mobile_number: '+91 98765 43210' } });
    expect(record).toMatchObject({ mobile: '******3210', person: { mobile_number: '9876543210' } });
  });
});
