import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';

// One way for every test to get a headless Chromium. The binary, first found of:
//   1. SVC_CHROMIUM (a path),
//   2. the system's /usr/bin/chromium (Debian's package), when installed,
//   3. the one shipped inside the @sparticuz/chromium devDependency, unpacked once per machine and
//      version (see bundledChromium), so `npm install && npm test` needs nothing from apt.
// playwright's launch() gives every browser a fresh profile in a temp directory of its own and
// deletes it when the browser closes.

// For a closed network, run as root. The same flags whichever binary is used.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-domain-reliability',
  '--no-pings',
];
// Deliberately not @sparticuz/chromium's `chromium.args` (made for AWS Lambda): its
// --single-process makes closing a browser context kill the whole browser (the next
// context.close() fails with "Target page, context or browser has been closed"); its
// --disable-web-security and --allow-running-insecure-content would hide the same-origin and
// mixed-content rules the pages under test live by; its ANGLE/SwiftShader flags are for WebGL,
// which these tests do not use (--disable-gpu). Its binary runs fine without them.

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  const fromEnv = process.env.SVC_CHROMIUM;
  if (fromEnv) return chromium.launch({ executablePath: fromEnv, args: ARGS });
  if (existsSync(SYSTEM_CHROMIUM)) return chromium.launch({ executablePath: SYSTEM_CHROMIUM, args: ARGS });
  const dir = await bundledChromium();
  return chromium.launch({
    executablePath: join(dir, 'chromium'),
    args: ARGS,
    // The shared libraries the binary needs beyond glibc (NSS, NSPR, expat) come with it.
    env: { ...process.env, LD_LIBRARY_PATH: [join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') },
  });
}

let unpacking: Promise<string> | undefined;

/**
 * The directory holding @sparticuz/chromium's binary (`chromium`) and its libraries (`lib/`),
 * unpacked from the package's brotli files into `<tmpdir>/svc-chromium-<version>`.
 *
 * Safe when several processes (vitest workers) ask at once: each unpacks into a staging directory
 * of its own and renames it into place; a rename onto a directory that is already there fails, so
 * the first complete copy wins and the others use it. The directory never exists half written.
 * (The package's own executablePath() writes /tmp/chromium in place and hands back any file it
 * finds there, so a second process can be given a half-written binary.)
 */
function bundledChromium(): Promise<string> {
  unpacking ??= unpack();
  return unpacking;
}

async function unpack(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `@sparticuz/chromium ships a Linux x64 binary only; set SVC_CHROMIUM to a Chromium executable on ${process.platform} ${process.arch}`,
    );
  }
  const pkgDir = dirname(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')));
  const { version } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `svc-chromium-${version}`);
  if (existsSync(join(dir, 'chromium'))) return dir;

  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    await chmod(staging, 0o755);
    await pipeline(
      createReadStream(join(pkgDir, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(join(staging, 'chromium'), { mode: 0o755 }),
    );
    // lib/libnss3.so, lib/libnspr4.so, …: built for Amazon Linux 2023 (glibc 2.34), they run on Debian 12 (glibc 2.36).
    await untarBrotli(join(pkgDir, 'bin', 'al2023.tar.br'), staging);
    await rename(staging, dir);
  } catch (err) {
    // Another process renamed its complete copy into place first.
    if (!(await stat(join(dir, 'chromium')).catch(() => undefined))) throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
}

async function untarBrotli(archive: string, into: string): Promise<void> {
  // Through a file: tar piped from stdin may exit once it has read the end-of-archive blocks,
  // before the writer has ended, and the pipe then fails as "Premature close" (seen under load).
  const tarball = join(into, 'unpacking.tar');
  await pipeline(createReadStream(archive), createBrotliDecompress(), createWriteStream(tarball));
  await promisify(execFile)('tar', ['-x', '--no-same-owner', '-f', tarball, '-C', into]);
  await rm(tarball);
}
