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
