import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

// How `npm run backup` reaches a running service on the same data folder: a Unix socket in the
// data folder (`run/admin.sock`, in a folder only the service's user may enter), one JSON request
// and one JSON answer per connection. Whoever may open it may already read the data folder, so it
// grants nothing a file copy would not; it exists because only the running process can copy the
// Temporal state file it holds exclusively, and it knows its PostgreSQL's address.

export const adminSocketPath = (dataDir: string) => path.join(dataDir, 'run', 'admin.sock');

export type AdminRequest = { command: 'backup'; directory: string };
export type AdminAnswer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

export async function serveAdminSocket(
  dataDir: string,
  handle: (request: AdminRequest) => Promise<AdminAnswer>,
): Promise<{ path: string; close(): Promise<void> } | { unavailable: string }> {
  const file = adminSocketPath(dataDir);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return { unavailable: `${file} is longer than a Unix socket path may be` };
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.chmod(path.dirname(file), 0o700);
  // Left by a process that died: this process owns the data folder now (its PostgreSQL started).
  await fs.rm(file, { force: true });
  const server = net.createServer((socket) => {
    let input = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      input += chunk;
      if (!input.includes('\n')) {
        if (input.length > 64 * 1024) socket.destroy();
        return;
      }
      let request: AdminRequest;
      try {
        request = JSON.parse(input.slice(0, input.indexOf('\n')));
      } catch {
        socket.end(`${JSON.stringify({ ok: false, error: { code: 'invalid_request', message: 'one JSON line was expected' } })}\n`);
        return;
      }
      void handle(request).then((answer) => socket.end(`${JSON.stringify(answer)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  return {
    path: file,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Sends one request; undefined when no service listens on the data folder. */
export function askAdminSocket(dataDir: string, request: AdminRequest): Promise<AdminAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(adminSocketPath(dataDir));
    let output = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk) => {
      output += chunk;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') resolve(undefined);
      else reject(err);
    });
    socket.on('end', () => {
      try {
        resolve(JSON.parse(output));
      } catch {
        reject(new Error(`the service answered on ${adminSocketPath(dataDir)} with something other than JSON: ${output.slice(0, 200)}`));
      }
    });
  });
}
