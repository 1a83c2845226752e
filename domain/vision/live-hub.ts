import { PassThrough } from 'node:stream';
import { DomainError } from '../errors.ts';
import { type CameraResponse, type CameraSettings, type CameraTarget, openCamera, readSnapshot } from './camera-client.ts';
import { MjpegParser, mjpegBoundary } from './mjpeg.ts';

// Live views (spec Limits "camera"): one upstream connection per camera, shared by all its
// viewers in this process, at most maxViewers of them; the feed closes with its last viewer. A
// snapshot camera is polled (one request at a time, SNAPSHOT_INTERVAL_MS apart) into the same
// stream. A viewer that reads slower than the camera sends skips frames instead of holding
// memory or slowing the others. Counted per API process: behind several processes each holds its
// own upstream and its own count (docs/api/vision.md says so).

export const LIVE_BOUNDARY = 'svcframe';
export const LIVE_CONTENT_TYPE = `multipart/x-mixed-replace; boundary=${LIVE_BOUNDARY}`;
const SNAPSHOT_INTERVAL_MS = 500;
/** A viewer with more than this queued is behind: it skips frames until it catches up. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export interface LiveCamera {
  id: string;
  name: string;
  kind: 'snapshot' | 'mjpeg';
  maxViewers: number;
}

interface Feed {
  viewers: Set<PassThrough>;
  /** Settles with the first frame (or the failure before it). */
  ready: Promise<void>;
  latest: Buffer | null;
  stop(): void;
}

const part = (jpeg: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${LIVE_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`),
    jpeg,
    Buffer.from('\r\n'),
  ]);

export class LiveHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly settings: CameraSettings;

  constructor(settings: CameraSettings) {
    this.settings = settings;
  }

  /** Viewers of a camera in this process now. */
  viewers(cameraId: string): number {
    return this.feeds.get(cameraId)?.viewers.size ?? 0;
  }

  /** The last frame of a running feed (a keyframe without a new connection), if any. */
  latest(cameraId: string): Buffer | null {
    return this.feeds.get(cameraId)?.latest ?? null;
  }

  /** Ends a camera's live views (it was removed). */
  close(cameraId: string): void {
    const feed = this.feeds.get(cameraId);
    if (!feed) return;
    this.feeds.delete(cameraId);
    feed.stop();
    for (const viewer of feed.viewers) viewer.end();
  }

  /**
   * A new viewer's stream, once the feed has a frame: camera_busy (429) past maxViewers, the
   * upstream's camera_unreachable / camera_timeout when it fails before its first frame.
   * `failed` hears every upstream failure (the caller pauses a rejected credential).
   */
  async join(camera: LiveCamera, target: CameraTarget, failed: (err: DomainError) => void): Promise<PassThrough> {
    let feed = this.feeds.get(camera.id);
    if (feed && feed.viewers.size >= camera.maxViewers) {
      throw new DomainError(
        'camera_busy',
        `Camera ${camera.name} already has its ${camera.maxViewers} live viewers; retry when one leaves.`,
        {
          details: { maxViewers: camera.maxViewers, viewers: feed.viewers.size },
          retryAfterSeconds: 10,
        },
      );
    }
    if (!feed) {
      feed = this.start(camera, target, failed);
      this.feeds.set(camera.id, feed);
    }
    // The place is taken before waiting, so viewers arriving together are counted together.
    const viewer = new PassThrough();
    feed.viewers.add(viewer);
    const leave = () => {
      feed.viewers.delete(viewer);
      if (feed.viewers.size === 0 && this.feeds.get(camera.id) === feed) {
        this.feeds.delete(camera.id);
        feed.stop();
      }
    };
    viewer.on('close', leave);
    try {
      await feed.ready;
    } catch (err) {
      leave();
      throw err;
    }
    if (feed.latest) viewer.write(part(feed.latest));
    return viewer;
  }

  private start(camera: LiveCamera, target: CameraTarget, failed: (err: DomainError) => void): Feed {
    let stopped = false;
    let response: CameraResponse | undefined;
    let stall: NodeJS.Timeout | undefined;
    let first: { resolve(): void; reject(err: unknown): void };
    const ready = new Promise<void>((resolve, reject) => {
      first = { resolve, reject };
    });
    // Nobody may be waiting when a feed fails later: its rejection is handled here too.
    ready.catch(() => {});
    const feed: Feed = {
      viewers: new Set(),
      ready,
      latest: null,
      stop: () => {
        stopped = true;
        clearTimeout(stall);
        response?.close();
      },
    };
    const frame = (jpeg: Buffer) => {
      feed.latest = jpeg;
      first.resolve();
      const bytes = part(jpeg);
      for (const viewer of feed.viewers) if (viewer.writableLength < MAX_QUEUED_BYTES) viewer.write(bytes);
    };
    const fail = (err: unknown) => {
      if (stopped) return;
      const error =
        err instanceof DomainError
          ? err
          : new DomainError('camera_unreachable', 'The camera dropped the connection.', { details: { cause: 'dropped' } });
      feed.stop();
      if (this.feeds.get(camera.id) === feed) this.feeds.delete(camera.id);
      first.reject(error);
      failed(error);
      for (const viewer of feed.viewers) viewer.end();
    };
    const timeoutMs = this.settings.timeoutMs;
    const armStall = () => {
      clearTimeout(stall);
      stall = setTimeout(
        () =>
          fail(
            new DomainError('camera_timeout', `The camera sent nothing for ${timeoutMs} ms.`, { details: { cause: 'stalled', timeoutMs } }),
          ),
        timeoutMs,
      );
    };

    const runMjpeg = async () => {
      response = await openCamera(target, this.settings);
      if (stopped) return response.close();
      const boundary = mjpegBoundary(response.contentType);
      if (!boundary) {
        throw new DomainError(
          'camera_unreachable',
          `The camera answered ${response.contentType || 'no content type'}, not an MJPEG stream.`,
          {
            details: { cause: 'not_mjpeg' },
          },
        );
      }
      const parser = new MjpegParser(boundary, frame);
      armStall();
      response.body.on('data', (chunk: Buffer) => {
        armStall();
        try {
          parser.push(chunk);
        } catch (err) {
          fail(err);
        }
      });
      response.body.on('end', () => fail(undefined));
      response.body.on('error', () => fail(undefined));
    };
    const runSnapshots = async () => {
      while (!stopped) {
        response = await openCamera(target, this.settings);
        frame(await readSnapshot(response, timeoutMs));
        await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_INTERVAL_MS));
      }
    };
    (camera.kind === 'mjpeg' ? runMjpeg() : runSnapshots()).catch(fail);
    return feed;
  }
}
