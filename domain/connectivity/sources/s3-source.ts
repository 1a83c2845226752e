import http from 'node:http';
import https from 'node:https';
import { DomainError } from '../../errors.ts';
import { type FileFormat, pageOfFiles, rowsOfFile } from './files.ts';
import { asAddressRefusal, checkAddressLiteral, outboundLookup } from './outbound.ts';
import { MAX_SOURCE_BYTES, type ReadSpec, SOURCE_TIMEOUT_MS, type SourcePage, type SourceReader } from './source.ts';

export interface S3Settings {
  bucket: string;
  prefix: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
}

/** Files matched by a pattern under the prefix: `*` stands for any characters but `/`. */
const matcher = (prefix: string, pattern: string) => {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${prefix.replace(/[.+?^${}()|[\]\\*]/g, '\\$&')}${escaped}$`);
};

const MAX_FILES = 10_000;

export function s3Source(
  settings: S3Settings,
  secretAccessKey: string | undefined,
  opts: { privateNetworks: boolean; signal?: AbortSignal },
): SourceReader {
  // The AWS SDK is loaded on first use only: it adds about half a second to a process's start.
  let sdk: Promise<{ s3: typeof import('@aws-sdk/client-s3'); client: import('@aws-sdk/client-s3').S3Client }> | undefined;
  const aws = () =>
    (sdk ??= import('@aws-sdk/client-s3').then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
        ...(settings.accessKeyId && secretAccessKey ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey } } : {}),
        // Every socket resolves the endpoint through the guarded lookup: the address connected to is the one checked.
        requestHandler: {
          requestTimeout: SOURCE_TIMEOUT_MS,
          connectionTimeout: SOURCE_TIMEOUT_MS,
          httpAgent: new http.Agent({ lookup: outboundLookup(opts.privateNetworks) as never }),
          httpsAgent: new https.Agent({ lookup: outboundLookup(opts.privateNetworks) as never }),
        },
      }),
    })));
  const prefix = settings.prefix === '' || settings.prefix.endsWith('/') ? settings.prefix : `${settings.prefix}/`;
  const host = new URL(settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`).hostname;
  /** Sends one command; the guarded lookup's refusal becomes connection_address_refused. */
  const send = async <T>(
    command: (s3: typeof import('@aws-sdk/client-s3'), client: import('@aws-sdk/client-s3').S3Client) => Promise<T>,
  ) => {
    checkAddressLiteral(host, opts.privateNetworks);
    const { s3, client } = await aws();
    return command(s3, client).catch((err: unknown) => {
      throw asAddressRefusal(err, host);
    });
  };
  const list = async (pattern: RegExp | null) => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await send((s3, client) =>
        client.send(new s3.ListObjectsV2Command({ Bucket: settings.bucket, Prefix: prefix, ContinuationToken: token }), {
          abortSignal: opts.signal,
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key && (!pattern || pattern.test(o.Key))) names.push(o.Key);
      if (names.length > MAX_FILES) throw new DomainError('invalid_payload', `More than ${MAX_FILES} files match: narrow the pattern.`);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names.sort();
  };
  // The activity reads a file once for all its pages.
  const cache = new Map<string, Record<string, unknown>[]>();
  return {
    async probe() {
      const names = await list(null);
      return `Listed s3://${settings.bucket}/${prefix}: ${names.length} file${names.length === 1 ? '' : 's'}.`;
    },
    async readPage(spec: ReadSpec, cursor: unknown): Promise<SourcePage> {
      const { pattern, format } = spec.source as { pattern: string; format: FileFormat };
      const names = await list(matcher(prefix, pattern));
      const rowsOf = async (name: string) => {
        const cached = cache.get(name);
        if (cached) return cached;
        const object = await send((s3, client) =>
          client.send(new s3.GetObjectCommand({ Bucket: settings.bucket, Key: name }), { abortSignal: opts.signal }),
        );
        if ((object.ContentLength ?? 0) > MAX_SOURCE_BYTES) {
          throw new DomainError('payload_too_large', `${name} is larger than ${MAX_SOURCE_BYTES} bytes.`, { details: { file: name } });
        }
        const rows = await rowsOfFile(name, await object.Body!.transformToByteArray(), format);
        cache.clear();
        cache.set(name, rows);
        return rows;
      };
      return pageOfFiles(names, rowsOf, cursor as { file: string; offset: number } | null, spec.pageSize);
    },
    async close() {
      if (sdk) (await sdk).client.destroy();
    },
  };
}
