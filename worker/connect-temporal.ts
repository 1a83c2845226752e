import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { type EmbeddedTemporal, startEmbeddedTemporal } from './embedded-temporal.ts';
import { installTemporalRuntime } from './runtime.ts';

export interface TemporalConnections {
  address: string;
  namespace: string;
  client: Client;
  /** svc's one data converter (its payload codec): the client has it, and every worker takes it. */
  dataConverter: DataConverter;
  /** For workers (the SDK's Rust core). */
  native: NativeConnection;
  /** The embedded server's state file; undefined when connected to TEMPORAL_ADDRESS. */
  embeddedStateFile: string | undefined;
  /** The embedded server: writes a consistent copy of its state file to `file` (a backup). */
  copyEmbeddedState: ((file: string) => Promise<void>) | undefined;
  /** The embedded server's Web UI, when it serves one. */
  uiUrl: string | undefined;
  /** Points the embedded Web UI at this codec endpoint (svc's own, known once its HTTP server listens). */
  setUiCodecEndpoint(url: string | undefined): void;
  close(): Promise<void>;
}

/**
 * TEMPORAL_ADDRESS set: that cluster. Unset: the project's own Temporal-protocol server on a
 * thread of this process (embedded-temporal.ts), for local use only, keeping its state in
 * `<dataDir>/temporal/temporal.sqlite`; its code is loaded only then, and only on that thread.
 */
export async function connectTemporal(opts: {
  address: string | undefined;
  namespace: string;
  dataDir: string;
  /** Port for the embedded server's Web UI (0: a free port; undefined: none). */
  uiPort: number | undefined;
  dataConverter: DataConverter;
  logger: Logger;
}): Promise<TemporalConnections> {
  installTemporalRuntime();
  let embedded: EmbeddedTemporal | undefined;
  let embeddedStateFile: string | undefined;
  if (!opts.address) {
    embeddedStateFile = path.join(opts.dataDir, 'temporal', 'temporal.sqlite');
    await mkdir(path.dirname(embeddedStateFile), { recursive: true });
    // Loopback only (the thread binds 127.0.0.1): the UI has no login of its own (payloads are
    // sealed, but run lists are not).
    embedded = await startEmbeddedTemporal({ namespace: opts.namespace, stateFile: embeddedStateFile, uiPort: opts.uiPort }, opts.logger);
    opts.logger.info(
      { address: embedded.address, stateFile: embeddedStateFile, ui: embedded.uiUrl },
      'TEMPORAL_ADDRESS is unset: using the embedded Temporal server (local use only), which keeps workflow state in the data folder',
    );
  }
  const address = opts.address ?? embedded!.address;
  try {
    const connection = await Connection.connect({ address });
    // The worker's core gzips every request by default; to the embedded server in this process
    // that only spends CPU on both sides (it was 7% of the process's CPU under app workflow runs,
    // decompressing on the server's side alone).
    const native = await NativeConnection.connect({ address, ...(embedded ? { grpcCompression: { codec: 'none' } } : {}) });
    return {
      address,
      namespace: opts.namespace,
      client: new Client({ connection, namespace: opts.namespace, dataConverter: opts.dataConverter }),
      dataConverter: opts.dataConverter,
      native,
      embeddedStateFile,
      copyEmbeddedState: embedded?.copyStateTo,
      uiUrl: embedded?.uiUrl,
      setUiCodecEndpoint: (url) => embedded?.setUiCodecEndpoint(url),
      async close() {
        await native.close();
        await connection.close();
        await embedded?.stop();
      },
    };
  } catch (err) {
    await embedded?.stop();
    throw new Error(`cannot reach Temporal at ${address}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Readiness: the frontend answers for our namespace (DescribeNamespace, cancelled with `signal`). */
export function describeOwnNamespace(temporal: Pick<TemporalConnections, 'client' | 'namespace'>, signal: AbortSignal): Promise<unknown> {
  return temporal.client.connection.withAbortSignal(signal, () =>
    temporal.client.workflowService.describeNamespace({ namespace: temporal.namespace }),
  );
}
