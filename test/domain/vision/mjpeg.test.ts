import { describe, expect, it } from 'vitest';
import { addressAllowed } from '../../../domain/vision/camera-client.ts';
import { MjpegParser, mjpegBoundary } from '../../../domain/vision/mjpeg.ts';
import { CAMERA_LIMITS } from '../../../schemas/vision.ts';

const jpeg = (n: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(n, n % 256), Buffer.from([0xff, 0xd9])]);

describe('MJPEG parts', () => {
  it('reads the boundary of quoted, unquoted and dash-prefixed parameters, and nothing else', () => {
    expect(mjpegBoundary('multipart/x-mixed-replace; boundary=frame')).toBe('frame');
    expect(mjpegBoundary('multipart/x-mixed-replace;boundary="my frame"')).toBe('my frame');
    expect(mjpegBoundary('image/jpeg')).toBeUndefined();
    expect(mjpegBoundary('multipart/x-mixed-replace')).toBeUndefined();
  });

  it('cuts parts by Content-Length or at the next boundary, however the bytes are split', () => {
    const frames = [jpeg(10), jpeg(3000), jpeg(1)];
    const stream = Buffer.concat(
      frames.flatMap((f, i) => [
        Buffer.from(`--b\r\nContent-Type: image/jpeg\r\n${i === 1 ? `Content-Length: ${f.length}\r\n` : ''}\r\n`),
        f,
        Buffer.from('\r\n'),
      ]),
    );
    const end = Buffer.from('--b\r\n');
    for (const size of [1, 7, 64, stream.length + end.length]) {
      const got: Buffer[] = [];
      const parser = new MjpegParser('--b', (f) => got.push(f));
      const all = Buffer.concat([stream, end]);
      for (let i = 0; i < all.length; i += size) parser.push(all.subarray(i, i + size));
      expect(got).toEqual(frames);
    }
  });

  it('refuses a part that is not a JPEG, and one larger than a frame may be, without holding more', () => {
    const parser = new MjpegParser('b', () => {});
    expect(() => parser.push(Buffer.from('--b\r\n\r\nhello\r\n--b\r\n'))).toThrow(/not a JPEG/);
    const big = new MjpegParser('b', () => {});
    big.push(Buffer.from('--b\r\nContent-Type: image/jpeg\r\n\r\n'));
    expect(() => big.push(Buffer.alloc(CAMERA_LIMITS.frameBytes + 16 * 1024, 1))).toThrow(/larger than/);
  });
});

describe('camera addresses', () => {
  it('allows private networks, refuses link-local, metadata, multicast and unspecified; loopback only when allowed', () => {
    for (const ok of ['10.1.2.3', '192.168.0.10', '172.16.5.5', 'fd12::1', '8.8.8.8']) expect(addressAllowed(ok, false), ok).toBe(true);
    for (const no of ['169.254.169.254', 'fe80::1', 'fd00:ec2::254', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::'])
      expect(addressAllowed(no, true), no).toBe(false);
    for (const loop of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(addressAllowed(loop, false), loop).toBe(false);
      expect(addressAllowed(loop, true), loop).toBe(true);
    }
    expect(addressAllowed('::ffff:169.254.169.254', true)).toBe(false);
  });
});
