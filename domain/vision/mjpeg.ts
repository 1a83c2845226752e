import { CAMERA_LIMITS } from '../../schemas/vision.ts';
import { DomainError } from '../errors.ts';

// A multipart/x-mixed-replace (MJPEG) reader: the parts between boundaries, each one JPEG. Parts
// are cut by their Content-Length when the camera sends one, else at the next boundary. Memory is
// bounded by one frame (CAMERA_LIMITS.frameBytes): a part that grows past it fails the stream.

const HEADER_END = Buffer.from('\r\n\r\n');
/** Part headers larger than this are not a camera's. */
const MAX_HEADER_BYTES = 8 * 1024;

/** The boundary of a `multipart/x-mixed-replace; boundary=…` content type; undefined when it is not one. */
export function mjpegBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/x-mixed-replace\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,200})"|([^;\s]{1,200}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export const isJpeg = (bytes: Buffer) => bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8;

const unreachable = (cause: string, message: string) => new DomainError('camera_unreachable', message, { details: { cause } });

export class MjpegParser {
  // Some cameras write the boundary parameter with its leading dashes already.
  private readonly delimiter: Buffer;
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly onFrame: (jpeg: Buffer) => void;

  constructor(boundary: string, onFrame: (jpeg: Buffer) => void) {
    this.onFrame = onFrame;
    this.delimiter = Buffer.from(boundary.startsWith('--') ? boundary : `--${boundary}`);
  }

  /** Feeds bytes; calls onFrame for each complete part. Throws camera_unreachable on a malformed or oversized part. */
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.next()) {
      // each completed part was handed on
    }
    if (this.buffer.length > CAMERA_LIMITS.frameBytes + MAX_HEADER_BYTES) {
      throw unreachable('too_large', `A frame is larger than ${CAMERA_LIMITS.frameBytes} bytes.`);
    }
  }

  /** Takes one part off the buffer when it is complete. */
  private next(): boolean {
    if (!this.started) {
      const at = this.buffer.indexOf(this.delimiter);
      if (at === -1) return false;
      this.buffer = this.buffer.subarray(at + this.delimiter.length);
      this.started = true;
    }
    const headerEnd = this.buffer.indexOf(HEADER_END);
    if (headerEnd === -1) {
      if (this.buffer.length > MAX_HEADER_BYTES) throw unreachable('not_mjpeg', 'A part of the MJPEG stream has no header end.');
      return false;
    }
    const bodyStart = headerEnd + HEADER_END.length;
    const length = /content-length:\s*(\d{1,10})/i.exec(this.buffer.subarray(0, headerEnd).toString('latin1'))?.[1];
    let bodyEnd: number;
    let rest: number;
    if (length !== undefined) {
      bodyEnd = bodyStart + Number(length);
      if (this.buffer.length < bodyEnd) return false;
      const next = this.buffer.indexOf(this.delimiter, bodyEnd);
      if (next === -1) return false;
      rest = next + this.delimiter.length;
    } else {
      const next = this.buffer.indexOf(this.delimiter, bodyStart);
      if (next === -1) return false;
      bodyEnd = next;
      rest = next + this.delimiter.length;
    }
    let body = this.buffer.subarray(bodyStart, bodyEnd);
    // The CRLF before the next delimiter belongs to the delimiter.
    while (body.length > 0 && (body[body.length - 1] === 0x0a || body[body.length - 1] === 0x0d)) body = body.subarray(0, -1);
    this.buffer = this.buffer.subarray(rest);
    if (!isJpeg(body)) throw unreachable('not_jpeg', 'A part of the MJPEG stream is not a JPEG image.');
    // A copy: the frame outlives the buffer it was cut from.
    this.onFrame(Buffer.from(body));
    return true;
  }
}
