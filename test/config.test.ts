import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicAddresses } from '../config.ts';

describe('configuration', () => {
  it('has working defaults: port 8080, embedded database under ./.data', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      temporalAddress: undefined,
      temporalNamespace: 'default',
      temporalUiPort: 8233,
    });
    expect(c.dataDir).toBe(path.resolve('.data'));
  });

  it('treats blank variables as unset', () => {
    const c = loadConfig({ DATABASE_URL: '  ', SVC_BASE_URL: '', TEMPORAL_ADDRESS: '' });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.baseUrl).toBeUndefined();
    expect(c.temporalAddress).toBeUndefined();
  });

  it("turns the in-memory Temporal server's Web UI off or onto another port", () => {
    expect(loadConfig({ SVC_TEMPORAL_UI_PORT: 'off' }).temporalUiPort).toBeUndefined();
    expect(loadConfig({ SVC_TEMPORAL_UI_PORT: '0' }).temporalUiPort).toBe(0);
    expect(() => loadConfig({ SVC_TEMPORAL_UI_PORT: 'on' })).toThrow(/SVC_TEMPORAL_UI_PORT/);
  });

  it("names an external cluster's Temporal Web UI for run addresses", () => {
    expect(loadConfig({}).temporalUiUrl).toBeUndefined();
    expect(loadConfig({ SVC_TEMPORAL_UI_URL: 'https://temporal.example.com/' }).temporalUiUrl).toBe('https://temporal.example.com');
    expect(() => loadConfig({ SVC_TEMPORAL_UI_URL: 'temporal.example.com' })).toThrow(/SVC_TEMPORAL_UI_URL/);
  });

  it('fails fast naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', SVC_BASE_URL: 'ftp://x', TEMPORAL_ADDRESS: 'nohost' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'SVC_BASE_URL', 'TEMPORAL_ADDRESS']) expect(message).toContain(name);
  });

  it('derives the public addresses from the listening address unless configured', () => {
    const derived = publicAddresses(loadConfig({}), { host: '127.0.0.1', port: 9000 });
    expect(derived).toEqual({
      baseUrl: 'http://127.0.0.1:9000',
      productionBase: 'http://127.0.0.1:9000/p',
      developerBase: 'http://127.0.0.1:9000/d',
    });
    const set = publicAddresses(
      loadConfig({
        SVC_BASE_URL: 'https://api.example.com/',
        SVC_PRODUCTION_BASE: 'https://apps.example.com',
        SVC_DEVELOPER_BASE: 'https://dev.example.com',
      }),
      { host: '127.0.0.1', port: 9000 },
    );
    expect(set).toEqual({
      baseUrl: 'https://api.example.com',
      productionBase: 'https://apps.example.com',
      developerBase: 'https://dev.example.com',
    });
  });
});

describe('operator bootstrap variables', () => {
  it('come as a pair with a password of at least 12 characters', () => {
    expect(() => loadConfig({ SVC_OPERATOR_LOGIN: 'root' })).toThrow(/set SVC_OPERATOR_LOGIN and SVC_OPERATOR_PASSWORD together/);
    expect(() => loadConfig({ SVC_OPERATOR_LOGIN: 'root', SVC_OPERATOR_PASSWORD: 'short' })).toThrow(
      /SVC_OPERATOR_PASSWORD: must be at least 12/,
    );
    expect(loadConfig({ SVC_OPERATOR_LOGIN: 'root', SVC_OPERATOR_PASSWORD: 'long-enough-pass' }).operator).toEqual({
      login: 'root',
      password: 'long-enough-pass',
      email: undefined,
    });
    expect(loadConfig({ SVC_TRUSTED_PROXIES: '10.0.0.1, ::1' }).trustedProxies).toEqual(['10.0.0.1', '::1']);
    expect(() => loadConfig({ SVC_TRUSTED_PROXIES: 'proxy.local' })).toThrow(/SVC_TRUSTED_PROXIES/);
  });
});

describe('blob store variables', () => {
  it('default to the PostgreSQL store and a 64 MiB cache', () => {
    for (const SVC_BLOB_STORE of [undefined, '', 'postgres']) {
      expect(loadConfig({ SVC_BLOB_STORE }).blobStore).toEqual({ kind: 'postgres' });
    }
    expect(loadConfig({}).blobCacheBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ SVC_BLOB_CACHE_BYTES: '0' }).blobCacheBytes).toBe(0);
    expect(loadConfig({}).hostingCompressedCacheBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ SVC_HOSTING_COMPRESSED_CACHE_BYTES: '1048576' }).hostingCompressedCacheBytes).toBe(1048576);
  });

  it('read bucket and prefix from s3://bucket/prefix, with an optional endpoint', () => {
    expect(loadConfig({ SVC_BLOB_STORE: 's3://svc-blobs/apps/v1/' }).blobStore).toEqual({
      kind: 's3',
      bucket: 'svc-blobs',
      prefix: 'apps/v1',
      endpoint: undefined,
    });
    expect(loadConfig({ SVC_BLOB_STORE: 's3://svc-blobs', SVC_BLOB_STORE_ENDPOINT: 'http://127.0.0.1:9000/' }).blobStore).toEqual({
      kind: 's3',
      bucket: 'svc-blobs',
      prefix: '',
      endpoint: 'http://127.0.0.1:9000',
    });
  });

  it.each([
    ['gs://bucket/x', /SVC_BLOB_STORE: must be postgres or s3:\/\/bucket\/prefix/],
    ['s3://Bad_Bucket/x', /SVC_BLOB_STORE: "Bad_Bucket" is not an S3 bucket name/],
    ['s3:///x', /SVC_BLOB_STORE: "" is not an S3 bucket name/],
    ['s3://svc-blobs/a//b', /SVC_BLOB_STORE: prefix "a\/\/b" has an empty, \. or \.\. segment/],
    ['s3://svc-blobs/a/../b', /SVC_BLOB_STORE: prefix "a\/..\/b"/],
  ])('refuse SVC_BLOB_STORE=%s clearly', (value, message) => {
    expect(() => loadConfig({ SVC_BLOB_STORE: value })).toThrow(message);
  });

  it('refuse an endpoint without an S3 store, an endpoint that is no URL, and a negative cache', () => {
    expect(() => loadConfig({ SVC_BLOB_STORE_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(
      /SVC_BLOB_STORE_ENDPOINT: applies only with SVC_BLOB_STORE=s3:\/\/bucket\/prefix/,
    );
    expect(() => loadConfig({ SVC_BLOB_STORE: 's3://svc-blobs/x', SVC_BLOB_STORE_ENDPOINT: 'minio:9000' })).toThrow(
      /SVC_BLOB_STORE_ENDPOINT/,
    );
    expect(() => loadConfig({ SVC_BLOB_CACHE_BYTES: '-1' })).toThrow(/SVC_BLOB_CACHE_BYTES/);
  });
});

describe('company initialization variables', () => {
  it('default to the local cloud provider in the data folder and a 10 s wait for the run id', () => {
    expect(loadConfig({ SVC_DATA_DIR: '/srv/svc' }).cloud).toEqual({ kind: 'local', dir: '/srv/svc/local-cloud' });
    // Workers of one cluster on one machine share one simulated account.
    expect(loadConfig({ SVC_DATA_DIR: '/srv/svc', SVC_LOCAL_CLOUD_DIR: '/srv/cloud' }).cloud).toEqual({ kind: 'local', dir: '/srv/cloud' });
    expect(loadConfig({}).runStartWaitMs).toBe(10_000);
    expect(loadConfig({ SVC_CLOUD_PROVIDER: 'aws', SVC_AWS_IMAGE_ID: 'ami-0123456789abcdef0' }).cloud).toEqual({
      kind: 'aws',
      imageId: 'ami-0123456789abcdef0',
      instanceType: 't3.small',
    });
  });

  it('need an image for aws, and refuse other providers and malformed ids', () => {
    expect(() => loadConfig({ SVC_CLOUD_PROVIDER: 'aws' })).toThrow(/SVC_AWS_IMAGE_ID/);
    expect(() => loadConfig({ SVC_CLOUD_PROVIDER: 'gcp' })).toThrow(/SVC_CLOUD_PROVIDER/);
    expect(() => loadConfig({ SVC_CLOUD_PROVIDER: 'aws', SVC_AWS_IMAGE_ID: 'image-1' })).toThrow(/SVC_AWS_IMAGE_ID/);
    expect(() => loadConfig({ SVC_RUN_START_WAIT_MS: '-1' })).toThrow(/SVC_RUN_START_WAIT_MS/);
  });

  it('put the company root under SVC_DATA_DIR by default, and refuse the system and data directories there', () => {
    const data = path.resolve('.data');
    expect(loadConfig({}).companyRoot).toEqual({
      allowed: path.join(data, 'companies'),
      refused: ['/proc', '/sys', '/dev', ...['postgres', 'temporal', 'cache', 'local-cloud', 'run'].map((f) => path.join(data, f))],
    });
    // A root that contains the data directory refuses all of it.
    expect(loadConfig({ SVC_COMPANY_ROOT: '/', SVC_DATA_DIR: '/var/lib/svc' }).companyRoot).toEqual({
      allowed: '/',
      refused: ['/proc', '/sys', '/dev', '/var/lib/svc'],
    });
    expect(loadConfig({ SVC_COMPANY_ROOT: 'relative/companies' }).companyRoot.allowed).toBe(path.resolve('relative/companies'));
  });

  it('refuse a company root in /proc, /sys, /dev, the data directory itself or a folder the service keeps there', () => {
    for (const root of ['/proc/self/fd', '/sys', '/dev/shm', '/var/lib/svc', '/var/lib/svc/postgres/x', '/var/lib/svc/temporal']) {
      expect(() => loadConfig({ SVC_COMPANY_ROOT: root, SVC_DATA_DIR: '/var/lib/svc' }), root).toThrow(/SVC_COMPANY_ROOT/);
    }
    expect(loadConfig({ SVC_COMPANY_ROOT: '/var/lib/svc/tenants', SVC_DATA_DIR: '/var/lib/svc' }).companyRoot.allowed).toBe(
      '/var/lib/svc/tenants',
    );
  });
});
