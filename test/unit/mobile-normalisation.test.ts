import { describe, expect, it } from '@jest/globals';
import { normaliseIndianMobile, toAsciiDigits } from '../../shared/domain/mobile.ts';

describe('normalising Indian mobile numbers', () => {
  it.each([
    ['+91 98765 43210', '9876543210'],
    ['0091-98765-43210', '9876543210'],
    ['09876543210', '9876543210'],
    ['9876543210', '9876543210'],
    ['(+91) 98765.43210', '9876543210'],
    ['91 6000000000', '6000000000'],
    ['7000000000', '7000000000'],
    ['8000000000', '8000000000'],
  ])('reads %s as %s', (input, expected) => {
    expect(normaliseIndianMobile(input)).toBe(expected);
  });

  it.each([
    ['९८७६५४३२१०', 'Devanagari digits'],
    ['９８７６５４３２１０', 'full-width digits'],
    ['+९१ ९८७६५ ४३२१०', 'Devanagari digits with a country code'],
    ['৯৮৭৬৫৪৩২১০', 'Bengali digits'],
  ])('reads %s (%s) as 9876543210', (input) => {
    expect(normaliseIndianMobile(input)).toBe('9876543210');
  });

  it.each([
    ['5876543210', 'starts with 5'],
    ['0876543210', 'starts with 0'],
    ['987654321', 'nine digits'],
    ['9876543210123456', 'sixteen digits'],
    ['98765 4321x', 'a letter'],
    ['+91/9876543210', 'a slash'],
    ['', 'nothing'],
    ['   ', 'only spaces'],
    ['+91 58765 43210', 'last ten digits start with 5'],
  ])('refuses %j (%s)', (input) => {
    expect(normaliseIndianMobile(input)).toBeUndefined();
  });

  it('uses the last ten of up to fifteen digits', () => {
    expect(normaliseIndianMobile('123459876543210')).toBe('9876543210');
  });

  it('turns every kind of Unicode decimal digit into its ASCII digit', () => {
    expect(toAsciiDigits('०१२३४५६७८९')).toBe('0123456789');
    expect(toAsciiDigits('０１２３４５６７８９')).toBe('0123456789');
    expect(toAsciiDigits('𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗𝟘𝟙')).toBe('012345678901');
    expect(toAsciiDigits('௦௧௨௩௪௫௬௭௮௯')).toBe('0123456789');
  });
});
