// The embedded Temporal server's thread (embedded-temporal.ts starts it): the server, its SQLite
// state and its Web UI on an event loop of their own, answering the parent's messages.

import { parentPort, workerData } from 'node:worker_threads';
import { startTemporalDevServer } from '@svc/temporal-dev';
import type { EmbeddedTemporalSettings, FromThread, ToThread } from './embedded-temporal.ts';

const port = parentPort!;
const settings = workerData as EmbeddedTemporalSettings;
let codecEndpoint: string | undefined;
const send = (message: FromThread) => port.postMessage(message);

try {
  const server = await startTemporalDevServer({
    host: '127.0.0.1',
    namespaces: [settings.namespace],
    dbFilename: settings.stateFile,
    uiPort: settings.uiPort,
    uiCodecEndpoint: () => codecEndpoint,
  });
  port.on('message', (message: ToThread) => {
    switch (message.kind) {
      case 'codecEndpoint':
        codecEndpoint = message.url;
        break;
      case 'copyState':
        try {
          server.copyStateTo!(message.file);
          send({ kind: 'copied', id: message.id });
        } catch (err) {
          send({ kind: 'copied', id: message.id, error: err instanceof Error ? err.message : String(err) });
        }
        break;
      case 'stop':
        // Closing the port leaves the thread nothing to wait for: it ends once the server has.
        void server.stop().finally(() => port.close());
        break;
    }
  });
  send({ kind: 'started', address: server.address, uiUrl: server.uiUrl });
} catch (err) {
  send({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
  port.close();
}
