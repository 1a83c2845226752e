// Ontology SQL backends at a low CPU priority (issue 28; SVC_SQL_BACKEND_NICE, 19 unless set). A
// company's query may keep a PostgreSQL backend busy for its whole statement timeout; at the
// default priority two of them take both cores of a small machine from the service's own backends
// (readiness, logins, other companies' reads) and from its event loop. At nice 19 they still get
// every idle cycle but yield whenever those want the CPU. A nice value alone is not enough on
// Linux: each backend calls setsid() at its start, so with autogroup scheduling (the default on
// desktops and many servers) it is a session, and so a CPU group, of its own, and the kernel
// shares the CPU between groups before nice counts inside one: its group gets the nice value too
// (/proc/<pid>/autogroup). Only a backend proven to be a process of this machine is touched:
// PostgreSQL reports its pid in its own process namespace, and a server elsewhere (another host, a container) may
// report the pid of an unrelated local process. The proof: the pid holds the other end of this
// very connection's TCP socket (Linux /proc). Anywhere else nothing changes: same answers, and
// the budgets (statement timeout, gate) still bound what a query costs.
import { readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import type net from 'node:net';
import { setPriority } from 'node:os';
import type pg from 'pg';

/** Whether the server proved remote once: then no later connection looks (the answer cannot change). */
let serverIsRemote = false;

/** Gives `client`'s backend the nice value `nice` when it runs on this machine; whether it did. */
export async function lowerBackendPriority(client: pg.Client, nice: number): Promise<boolean> {
  if (nice === 0 || serverIsRemote || process.platform !== 'linux') return false;
  const pid = (client as unknown as { processID?: number }).processID;
  const socket = (client as unknown as { connection: { stream: net.Socket } }).connection.stream;
  if (!pid || !socket.localPort || !socket.remotePort) return false; // a Unix socket: no port pair to match
  try {
    const inode = await peerSocketInode(socket.remotePort, socket.localPort);
    if (inode === undefined) {
      serverIsRemote = true; // not in this network namespace: another host or container
      return false;
    }
    if (!(await holdsSocket(pid, inode))) return false;
    setPriority(pid, nice);
    // No such file without autogroup scheduling (then the nice value above is what counts).
    await writeFile(`/proc/${pid}/autogroup`, String(nice)).catch(() => undefined);
    return true;
  } catch {
    // No /proc, no right to read the backend's descriptors or to renice it: it keeps its priority.
    return false;
  }
}

/** The inode of the established TCP socket from `localPort` to `remotePort` in this namespace. */
async function peerSocketInode(localPort: number, remotePort: number): Promise<string | undefined> {
  const local = `:${hexPort(localPort)}`;
  const remote = `:${hexPort(remotePort)}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(local) && f[2]?.endsWith(remote) && f[3] === ESTABLISHED) return f[9];
    }
  }
  return undefined;
}

async function holdsSocket(pid: number, inode: string): Promise<boolean> {
  const dir = `/proc/${pid}/fd`;
  const target = `socket:[${inode}]`;
  for (const fd of await readdir(dir)) {
    if ((await readlink(`${dir}/${fd}`).catch(() => '')) === target) return true;
  }
  return false;
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
const ESTABLISHED = '01';
