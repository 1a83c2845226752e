import pg from 'pg';

// One statement through PostgreSQL's extended protocol, read up to a row limit: Parse (which
// refuses several statements), Bind, Describe, then Execute with a row count, so the server stops
// at the limit and the rest is never produced. A dry run stops after Describe: parsed, planned
// and described, never executed. A pg "Submittable" (what client.query accepts besides text).

export interface PortalField {
  name: string;
  dataTypeID: number;
}

export interface PortalResult {
  /** undefined: the statement returns no rows (not a query). */
  fields: PortalField[] | undefined;
  rows: unknown[][];
}

// Dates as written (pg would make a local-midnight Date of them); everything else as the pool reads it.
const TEXT_AS_IS = new Set([pg.types.builtins.DATE, pg.types.builtins.TIMESTAMP]);
const parserOf = (oid: number) => (TEXT_AS_IS.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, 'text'));

/** The messages of pg's connection this query sends. */
interface ProtocolConnection {
  parse(msg: { text: string; types: number[] }): void;
  bind(msg: { values: (string | null)[] }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows: number }): void;
  sync(): void;
}

export class PortalQuery {
  readonly result: Promise<PortalResult>;
  private resolve!: (r: PortalResult) => void;
  private reject!: (e: unknown) => void;
  private fields: PortalField[] | undefined;
  private parsers: ((v: string) => unknown)[] = [];
  private rows: unknown[][] = [];
  private failed = false;

  private readonly text: string;
  private readonly values: readonly (string | number | boolean | null)[];
  private readonly maxRows: number;

  /** maxRows: rows to read; 0 for a dry run (describe only). */
  constructor(text: string, values: readonly (string | number | boolean | null)[], maxRows: number) {
    this.text = text;
    this.values = values;
    this.maxRows = maxRows;
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: ProtocolConnection): void {
    connection.parse({ text: this.text, types: [] });
    connection.bind({ values: this.values.map((v) => (v === null ? null : String(v))) });
    connection.describe({ type: 'P', name: '' });
    if (this.maxRows > 0) connection.execute({ portal: '', rows: this.maxRows });
    // After an error the server skips to this Sync and answers ReadyForQuery.
    connection.sync();
  }

  handleRowDescription(msg: { fields: PortalField[] }): void {
    this.fields = msg.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
    this.parsers = this.fields.map((f) => parserOf(f.dataTypeID) as (v: string) => unknown);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    this.rows.push(msg.fields.map((v, i) => (v === null ? null : this.parsers[i]!(v))));
  }

  // The row count was reached (the caller asks for one row more than it shows, to know whether the limit cut).
  handlePortalSuspended(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}

  handleCopyInResponse(connection: { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('COPY is not available in ontology SQL');
  }

  handleCopyData(): void {}

  handleError(err: unknown): void {
    this.failed = true;
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.resolve({ fields: this.fields, rows: this.rows });
  }
}
