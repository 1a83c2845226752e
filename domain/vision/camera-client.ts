import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { CAMERA_LIMITS } from '../../schemas/vision.ts';
import { DomainError } from '../errors.ts';
import { ADDRESS_REFUSED, type AddressKind, classifyAddress, guardedLookup } from '../security/index.ts';
import { isJpeg, MjpegParser, mjpegBoundary } from './mjpeg.ts';

// The one way the service talks to a camera. Cameras are addresses a company's developers
// configure, usually on the company's own network, so private ranges (10/8, 172.16/12,
// 192.168/16, fc00::/7) are allowed: that is where cameras live. Refused, whatever the name
// resolves to (checked on the address actually connected to, so DNS rebinding cannot pass): this
// host (loopback, unless SVC_CAMERA_LOOPBACK=allow, for tests and a camera on the service's own
// machine), link-local (169.254/16, fe80::/10, the AWS IPv6 metadata address: cloud metadata
// services), unspecified, multicast and reserved ranges (domain/security's address table). Redirects are never followed (a camera
// cannot send the service elsewhere), bodies are bounded, and credentials go only as a Basic
// header to the configured address.

export interface CameraSettings {
  /** Connection, first byte and stall bound (SVC_CAMERA_TIMEOUT_MS). */
  timeoutMs: number;
  /** Whether loopback addresses may be cameras (SVC_CAMERA_LOOPBACK). */
  allowLoopback: boolean;
}

export interface CameraTarget {
  url: string;
  credential: { username: string; password: string } | null;
}

/** The camera policy on the one address table: private and public, loopback only when allowed. */
const cameraMay = (allowLoopback: boolean) => (kind: AddressKind) =>
  kind === 'private' || kind === 'public' || (kind === 'loopback' && allowLoopback);

/** Whether the service may connect to this address as a camera. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  return cameraMay(allowLoopback)(classifyAddress(address));
}

const unreachable = (cause: string, message: string, details: Record<string, unknown> = {}) =>
  new DomainError('camera_unreachable', message, { details: { cause, ...details } });
const timedOut = (cause: string, ms: number) =>
  new DomainError('camera_timeout', `The camera did not answer within ${ms} ms (${cause}).`, { details: { cause, timeoutMs: ms } });

function connectionError(err: NodeJS.ErrnoException): DomainError {
  if (err instanceof DomainError) return err;
  switch (err.code) {
    case ADDRESS_REFUSED:
      return unreachable(
        'address_refused',
        'The camera’s address is not one the service may connect to (loopback, link-local, multicast…).',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return unreachable('dns', 'The camera’s host name does not resolve.');
    case 'ECONNREFUSED':
      return unreachable('refused', 'The camera refused the connection.');
    default:
      return unreachable('dropped', `The connection to the camera failed (${err.code ?? 'closed'}).`);
  }
}

/** An open camera answer: its headers arrived and were acceptable. */
export interface CameraResponse {
  contentType: string;
  body: http.IncomingMessage;
  close(): void;
}

/**
 * GET the camera's address; resolves once headers arrive (or fails: camera_timeout after
 * timeoutMs, camera_unreachable with a cause; a 401 or 403 is `credential_rejected`).
 */
export function openCamera(target: CameraTarget, settings: CameraSettings): Promise<CameraResponse> {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address written as an IP is connected to without a lookup: judged here.
  if (net.isIP(host) && !addressAllowed(host, settings.allowLoopback)) {
    return Promise.reject(connectionError(Object.assign(new Error('refused address'), { code: ADDRESS_REFUSED })));
  }
  const headers: Record<string, string> = { accept: 'image/jpeg, multipart/x-mixed-replace', 'user-agent': 'svc-camera' };
  if (target.credential) {
    headers.authorization = `Basic ${Buffer.from(`${target.credential.username}:${target.credential.password}`).toString('base64')}`;
  }
  return new Promise((resolve, reject) => {
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, { headers, agent: false, lookup: guardedLookup(cameraMay(settings.allowLoopback)) as never });
    const timer = setTimeout(() => req.destroy(timedOut('connect', settings.timeoutMs)), settings.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(connectionError(err));
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      const fail = (err: DomainError) => {
        res.resume();
        req.destroy();
        reject(err);
      };
      if (status === 401 || status === 403) {
        return fail(
          unreachable(
            'credential_rejected',
            target.credential ? 'The camera rejected the credential.' : 'The camera asks for a credential and none is set.',
            { status },
          ),
        );
      }
      if (status >= 300 && status < 400)
        return fail(unreachable('redirect', 'The camera answered with a redirect, which is not followed.', { status }));
      if (status < 200 || status >= 300) return fail(unreachable('http_status', `The camera answered HTTP ${status}.`, { status }));
      resolve({ contentType: res.headers['content-type'] ?? '', body: res, close: () => req.destroy() });
    });
  });
}

/**
 * Calls `onChunk` with each chunk of the body until it returns true (or, when `endCompletes`, the
 * body ends), failing with camera_timeout when no byte arrives for timeoutMs (a stalled camera).
 */
function readUntil(res: CameraResponse, timeoutMs: number, endCompletes: boolean, onChunk: (chunk: Buffer) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout;
    const done = (err?: DomainError) => {
      clearTimeout(timer);
      res.body.removeAllListeners('data');
      res.close();
      if (err) reject(err);
      else resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => done(timedOut('stalled', timeoutMs)), timeoutMs);
    };
    arm();
    res.body.on('data', (chunk: Buffer) => {
      try {
        if (onChunk(chunk)) done();
        else arm();
      } catch (err) {
        done(err instanceof DomainError ? err : unreachable('dropped', String(err)));
      }
    });
    res.body.on('end', () =>
      done(endCompletes ? undefined : unreachable('dropped', 'The camera closed the connection before a whole frame arrived.')),
    );
    res.body.on('error', () => done(unreachable('dropped', 'The camera dropped the connection.')));
  });
}

/** One whole JPEG body of a snapshot answer (bounded by CAMERA_LIMITS.frameBytes). */
export async function readSnapshot(res: CameraResponse, timeoutMs: number): Promise<Buffer> {
  if (!/^image\/jpe?g\b/i.test(res.contentType)) {
    res.close();
    throw unreachable('not_jpeg', `The camera answered ${res.contentType || 'no content type'}, not image/jpeg.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  await readUntil(res, timeoutMs, true, (chunk) => {
    size += chunk.length;
    if (size > CAMERA_LIMITS.frameBytes) throw unreachable('too_large', `The snapshot is larger than ${CAMERA_LIMITS.frameBytes} bytes.`);
    chunks.push(chunk);
    return false;
  });
  const jpeg = Buffer.concat(chunks);
  if (!isJpeg(jpeg)) throw unreachable('not_jpeg', 'The snapshot is not a JPEG image.');
  return jpeg;
}

/** Reads MJPEG frames, calling onFrame until it returns true (then the connection is closed). */
export function readMjpeg(res: CameraResponse, timeoutMs: number, onFrame: (jpeg: Buffer) => boolean): Promise<void> {
  const boundary = mjpegBoundary(res.contentType);
  if (!boundary) {
    res.close();
    return Promise.reject(unreachable('not_mjpeg', `The camera answered ${res.contentType || 'no content type'}, not an MJPEG stream.`));
  }
  let enough = false;
  const parser = new MjpegParser(boundary, (jpeg) => {
    if (!enough) enough = onFrame(jpeg);
  });
  return readUntil(res, timeoutMs, false, (chunk) => {
    parser.push(chunk);
    return enough;
  });
}
