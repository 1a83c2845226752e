import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

// A camera on 127.0.0.1 for the vision tests: `/snapshot.jpg` answers one JPEG, `/stream.mjpg` an
// MJPEG stream (a frame every FRAME_MS), both made by sharp. It can ask for Basic credentials,
// stall (headers, then nothing) and drop (one frame, then the connection is cut), and counts the
// requests and open streams it serves, so tests see how the service connects to it.

export const CAMERA_FRAME = { width: 320, height: 240 };
const FRAME_MS = 40;
const BOUNDARY = 'testcamera';

export type CameraMode = 'ok' | 'stall' | 'drop';

export interface TestCamera {
  url(path: '/snapshot.jpg' | '/stream.mjpg'): string;
  /** Requests served per path since the start (or the last reset). */
  requests: Record<string, number>;
  /** MJPEG streams open now. */
  openStreams(): number;
  mode: CameraMode;
  /** When set, requests without these Basic credentials answer 401. */
  credentials: { username: string; password: string } | null;
  /** The Authorization headers received, for the test that credentials reach the camera and nowhere else. */
  authorizations: string[];
  close(): Promise<void>;
}

/** JPEG frames of distinct colours (a moving picture, in the simplest way). */
export async function testFrames(count = 4): Promise<Buffer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      sharp({ create: { ...CAMERA_FRAME, channels: 3, background: { r: 60 * i, g: 128, b: 255 - 60 * i } } })
        .jpeg()
        .toBuffer(),
    ),
  );
}

export async function startTestCamera(): Promise<TestCamera> {
  const frames = await testFrames();
  const sockets = new Set<import('node:net').Socket>();
  let streams = 0;
  const camera: Omit<TestCamera, 'url' | 'close'> & { url?: unknown } = {
    requests: {},
    openStreams: () => streams,
    mode: 'ok',
    credentials: null,
    authorizations: [],
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    camera.requests[path] = (camera.requests[path] ?? 0) + 1;
    if (req.headers.authorization) camera.authorizations.push(req.headers.authorization);
    if (camera.credentials) {
      const expected = `Basic ${Buffer.from(`${camera.credentials.username}:${camera.credentials.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="camera"' }).end();
        return;
      }
    }
    if (path === '/snapshot.jpg') {
      if (camera.mode === 'stall')
        return void res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '100000' }).flushHeaders();
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(frames[0]);
      return;
    }
    if (path !== '/stream.mjpg') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': `multipart/x-mixed-replace; boundary=${BOUNDARY}` }).flushHeaders();
    streams++;
    res.on('close', () => streams--);
    if (camera.mode === 'stall') return;
    let n = 0;
    const send = () => {
      const jpeg = frames[n++ % frames.length]!;
      // Every other frame without Content-Length: readers must handle both.
      const length = n % 2 === 0 ? `Content-Length: ${jpeg.length}\r\n` : '';
      res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\n${length}\r\n`);
      res.write(jpeg);
      res.write('\r\n');
    };
    send();
    if (camera.mode === 'drop') {
      // The frame's closing boundary never comes: the connection is cut mid-stream.
      res.socket?.destroy();
      return;
    }
    const timer = setInterval(send, FRAME_MS);
    res.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(camera as TestCamera, {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
