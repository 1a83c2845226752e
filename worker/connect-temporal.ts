import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { installTemporalRuntime } from './runtime.ts';

export interface TemporalConnections {
  address: string;
  namespace: string;
  client: Client;
  /** For workers (the SDK's Rust core). */
  native: NativeConnection;
  embedded: boolean;
  /** The in-memory server's Web UI, when it serves one. */
  uiUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * TEMPORAL_ADDRESS set: that cluster. Unset: the project's in-memory
 * Temporal-protocol server in this process, for local use only; its code is
 * loaded only then.
 */
export async function connectTemporal(opts: {
  address: string | undefined;
  namespace: string;
  /** Port for the in-memory server's Web UI (0: a free port; undefined: none). */
  uiPort: number | undefined;
  logger: Logger;
}): Promise<TemporalConnections> {
  installTemporalRuntime();
  let embedded: { address: string; uiUrl: string | undefined; stop(): Promise<void> } | undefined;
  if (!opts.address) {
    const { startTemporalDevServer } = await import('@svc/temporal-dev');
    embedded = await startTemporalDevServer({ namespaces: [opts.namespace], uiPort: opts.uiPort });
    opts.logger.warn(
      { address: embedded.address, ui: embedded.uiUrl },
      'TEMPORAL_ADDRESS is unset: using the in-memory Temporal server (local use only; workflow state is lost on restart)',
    );
  }
  const address = opts.address ?? embedded!.address;
  try {
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    return {
      address,
      namespace: opts.namespace,
      client: new Client({ connection, namespace: opts.namespace }),
      native,
      embedded: embedded !== undefined,
      uiUrl: embedded?.uiUrl,
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
