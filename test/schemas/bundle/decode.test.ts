import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeContent, decodeText } from '../../../schemas/bundle/decode.ts';

describe('decodeContent', () => {
  it('decodes canonical base64', () => {
    for (const text of ['', 'f', 'fo', 'foo', 'foob', 'hello world']) {
      const result = decodeContent('base64', Buffer.from(text).toString('base64'));
      expect(result.ok && result.bytes.toString()).toBe(text);
    }
  });

  it.each([
    ['Zm9v YmFy', 'whitespace'],
    ['Zm9v\n', 'newline'],
    ['Zm9vYg', 'missing padding'],
    ['Zm9vYg=', 'short padding'],
    ['Zm9vYmE==', 'excess padding'],
    ['Zm=9v', 'padding inside'],
    ['Zm9v_w==', 'url-safe alphabet'],
    ['Zm9v*A==', 'invalid character'],
    ['Zh==', 'non-zero padding bits'],
    ['Zm9=', 'non-zero padding bits (one =)'],
  ])('rejects %j (%s)', (content) => {
    expect(decodeContent('base64', content)).toEqual({ ok: false, code: 'content_invalid_base64', message: expect.any(String) });
  });

  // An independent definition of canonical base64: the shape (groups of four, padding only at
  // the end) and zero bits in the unused part of the last character.
  const SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const canonical = (text: string) => {
    if (!SHAPE.test(text)) return false;
    const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    const last = ALPHABET.indexOf(text[text.length - padding - 1] ?? 'A');
    return (last & (padding === 2 ? 0b1111 : padding === 1 ? 0b11 : 0)) === 0;
  };

  it('accepts exactly the canonical texts, and decodes them to the bytes they spell', () => {
    const char = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '=', '=', '_', '-', ' ', '\n', 'é');
    const nearCanonical = fc.tuple(fc.uint8Array({ maxLength: 12 }), fc.nat(20), char).map(([bytes, at, c]) => {
      const text = Buffer.from(bytes).toString('base64');
      return at < text.length && at % 3 === 0 ? text.slice(0, at) + c + text.slice(at + 1) : text;
    });
    fc.assert(
      fc.property(fc.oneof(nearCanonical, fc.string({ unit: char, maxLength: 12 })), (text) => {
        const result = decodeContent('base64', text);
        expect(result.ok).toBe(canonical(text));
        if (result.ok) expect(result.bytes.toString('base64')).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('encodes utf8 text', () => {
    const result = decodeContent('utf8', 'héllo ✓');
    expect(result.ok && result.bytes.toString('utf8')).toBe('héllo ✓');
  });

  it('rejects utf8 content with an unpaired surrogate', () => {
    expect(decodeContent('utf8', 'a\ud800b')).toMatchObject({ ok: false, code: 'content_invalid_utf8' });
  });
});

describe('decodeText', () => {
  it('returns text for valid UTF-8 and undefined otherwise', () => {
    expect(decodeText(Buffer.from('ok ✓'))).toBe('ok ✓');
    expect(decodeText(Buffer.from([0x61, 0xff, 0x62]))).toBeUndefined();
    expect(decodeText(Buffer.from([0xe2, 0x82]))).toBeUndefined();
  });
});
