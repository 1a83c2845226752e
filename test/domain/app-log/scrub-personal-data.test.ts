import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ScrubMeter, scrubPersonalData, scrubText } from '../../../domain/app-log/scrub-personal-data.ts';

describe('scrubText', () => {
  it.each([
    ['mail anna.b+tag@mail.example.co.uk today', 'mail [email] today'],
    ['end with a@b.io.', 'end with [email].'],
    ['card 4111 1111 1111 1111 ok', 'card [card] ok'],
    ['card 4111-1111-1111-1111', 'card [card]'],
    ['call +49 30 1234567', 'call [phone]'],
    ['call (030) 1234-5678', 'call ([phone]'],
    ['call 0301234567', 'call [phone]'],
  ])('%s', (input, output) => expect(scrubText(input)).toBe(output));

  // Issue 28 finding 8: each of these was left as it was.
  it.each([
    ['card 4111.1111.1111.1111 dotted', 'card [card] dotted'],
    ['amex 3782.8224.6310.005', 'amex [card]'],
    ['call 212.555.0100.', 'call [phone].'],
    ['call +49.30.1234.5678', 'call [phone]'],
    ['card ４１１１ １１１１ １１１１ １１１１ full-width', 'card [card] full-width'],
    ['card ４１１１１１１１１１１１１１１１', 'card [card]'],
    ['card ４１１１－１１１１－１１１１－１１１１', 'card [card]'],
    ['call ＋４９\u3000３０\u3000１２３４５６７', 'call [phone]'],
    ['call ０３０１２３４５６７', 'call [phone]'],
    ['mail jörg@exämple.de now', 'mail [email] now'],
    ['mail 山田@例え.jp', 'mail [email]'],
    ['mail ärger@müller.рф.', 'mail [email].'],
    ['mail user@xn--exmple-cua.de', 'mail [email]'],
  ])('scrubs %s', (input, output) => expect(scrubText(input)).toBe(output));

  it.each([
    'version 1.2.3 on 2026-11-22 at 10:30',
    'order 12345 of 7 items',
    'pi is 3.14159265358979',
    'id abc1234567890def',
    'not an email: a@b, @home, user@localhost, jörg@exämple',
    '4111 1111 1111 1112 fails the Luhn check but is 16 digits',
    'host 192.168.100.200 and 10.0.0.1',
    'amount 1234567.89 and 12.345.678',
    'über 3 Äpfel, ４ Birnen',
    'word４１１１１１１１１１１１１１１１',
  ])('leaves %s alone', (input) => {
    // The Luhn one is left alone by the card rule and is too long for a phone number.
    expect(scrubText(input)).toBe(input);
  });

  it('handles hostile input in one pass (no backtracking)', () => {
    const n = 200_000;
    expect(scrubText('@'.repeat(n))).toBe('@'.repeat(n));
    expect(scrubText('a'.repeat(n) + '@')).toBe(`${'a'.repeat(n)}@`);
    expect(scrubText('1 '.repeat(n)).length).toBeGreaterThan(0);
    expect(scrubText('a@'.repeat(n))).toBe('a@'.repeat(n));
    expect(scrubText('a.'.repeat(n) + '@b')).toBe(`${'a.'.repeat(n)}@b`);
  });

  // Counted, not timed: the characters looked at stay within a constant times the length, for
  // long strings made of the pieces every rule reacts to, in any order and repetition.
  it('looks at each character a bounded number of times, whatever the input', () => {
    const piece = fc.constantFrom('@', 'a', 'ö', '.', '1', '４', ' ', '+', '-', '(', '．', '\u3000', 'x@y.de', '4111', '1.2', '@b.c');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.integer({ min: 2_000, max: 20_000 }), (pattern, repeats) => {
        const text = pattern.join('').repeat(repeats).slice(0, 100_000);
        const meter: ScrubMeter = { steps: 0 };
        scrubText(text, meter);
        expect(meter.steps).toBeLessThanOrEqual(6 * text.length + 6);
      }),
      { numRuns: 60 },
    );
  });
});

describe('scrubPersonalData', () => {
  it('scrubs every string of a JSON value, keys too, and keeps shape and other numbers', () => {
    expect(scrubPersonalData({ who: 'x@y.org', n: 42, pi: 3.14, list: ['+1 212 555 0100', 1, null], 'x@y.org': true })).toEqual({
      who: '[email]',
      n: 42,
      pi: 3.14,
      list: ['[phone]', 1, null],
      '[email]': true,
    });
  });

  it('scrubs card and phone numbers given as JSON numbers (issue 28 finding 8: they were kept)', () => {
    expect(
      scrubPersonalData({
        card: 4111111111111111,
        phone: 4930123456789,
        list: [5555555555554444, 302345678901],
        small: 1234567,
        luhnFails: 4111111111111112,
      }),
    ).toEqual({ card: '[card]', phone: '[phone]', list: ['[card]', '[phone]'], small: 1234567, luhnFails: 4111111111111112 });
    // Past 2^53 the digits are rounded, so a card-length integer is taken for a card; longer ones are no card.
    const sent = JSON.parse('[41111111111111111, 41111111111111111111, 4111111111111111.5, -4111111111111111]') as number[];
    expect(scrubPersonalData(sent)).toEqual(['[card]', sent[1], sent[2], sent[3]]);
  });

  it('keeps Date.now()-like numbers and epoch seconds of 2001-2100 (they were scrubbed as [phone])', () => {
    const sent = {
      at: 1_764_032_400_123, // 2025-11-25 in ms
      first: 1_000_000_000_000, // 2001-09-09 in ms
      last: 4_102_444_799_999, // 2100-12-31 in ms
      luhnValid: 1_764_032_400_111, // a timestamp that also passes the Luhn check
      iat: 1_764_032_400, // in s
      exp: 4_102_444_799,
    };
    expect(scrubPersonalData(sent)).toEqual(sent);
  });

  it('still scrubs 13-digit and 10-digit phone numbers outside the timestamp ranges, and timestamps in strings', () => {
    expect(
      scrubPersonalData({
        berlin: 4_930_123_456_789,
        pastRange: 4_102_444_800_000,
        uk: 9_990_123_456_789,
        us: 6_505_550_100,
        atIn1990: 631_152_000_000, // 12 digits, before 2001: a phone number
        text: 'at 1764032400123',
      }),
    ).toEqual({ berlin: '[phone]', pastRange: '[phone]', uk: '[phone]', us: '[phone]', atIn1990: '[phone]', text: 'at [phone]' });
  });

  it('scrubs a Luhn-valid 16-digit card number given as a number, and keeps one that fails the check', () => {
    expect(scrubPersonalData({ visa: 4_012_888_888_881_881, amex15: 378_282_246_310_005, fails: 4_012_888_888_881_882 })).toEqual({
      visa: '[card]',
      amex15: '[card]',
      fails: 4_012_888_888_881_882,
    });
  });

  it('copies a __proto__ key as an own key, never as the prototype', () => {
    const out = scrubPersonalData(JSON.parse('{"__proto__":{"polluted":"a@b.de"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(out['polluted']).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"[email]"}}');
  });
});
