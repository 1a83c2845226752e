import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { EnvSchema, loadConfig } from '../../config.ts';
import { S3_ENV } from '../support/s3.ts';

// infra/compose.yaml and infra/kubernetes/ describe one topology (docs/operators/scaling-out.md):
// they must give svc the same variables, each one svc (config.ts) or the AWS SDK reads, with values
// config.ts accepts, and cover every variable the cluster tests' harness gives all its processes.
// Nothing here runs containers or Kubernetes: this reads the files.

const read = (file: string) => readFileSync(file, 'utf8');
/** What the AWS SDK's default credential chain and region provider read (s3:// blob store, EC2). */
const AWS_SDK = new Set(Object.keys(S3_ENV));
const KNOWN = new Set([...Object.keys(EnvSchema.shape), ...AWS_SDK]);

type Env = Record<string, string>;
type Container = {
  args?: string[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  startupProbe?: unknown;
};
type Resource = {
  kind: string;
  metadata: { name: string };
  data?: Env;
  stringData?: Env;
  spec?: { template: { spec: { containers: Container[] } } };
};

const SAMPLE_PAYLOAD_KEYS = `main:${Buffer.alloc(32, 1).toString('base64')}`;
const SAMPLE_SECRET_KEYS = `main:${Buffer.alloc(32, 2).toString('base64')}`;
/** The keys every replica must share, each with a sample value of the right form. */
const SAMPLE_KEYS: Record<string, string> = { SVC_TEMPORAL_PAYLOAD_KEYS: SAMPLE_PAYLOAD_KEYS, SVC_SECRET_KEYS: SAMPLE_SECRET_KEYS };

/** Compose's `${NAME:-default}` and `${NAME:?message}` as compose would fill them with NAME unset (a sample for `:?`). */
const interpolate = (value: unknown) =>
  String(value).replace(/\$\{([A-Z0-9_]+):([-?])([^}]*)\}/g, (_m, name: string, how: string, rest: string) =>
    how === '-' ? rest : (SAMPLE_KEYS[name] ?? 'sample'),
  );

function composeServices(): Record<string, { command?: string[]; environment: Env }> {
  return parse(read('infra/compose.yaml')).services;
}

function kubernetesResources(): Resource[] {
  const kustomization = parse(read('infra/kubernetes/kustomization.yaml')) as { resources: string[] };
  return kustomization.resources.flatMap((file) =>
    parseAllDocuments(read(`infra/kubernetes/${file}`)).map((doc) => {
      expect(doc.errors, file).toEqual([]);
      return doc.toJS() as Resource;
    }),
  );
}

/** The environment a Deployment's one container gets: its envFrom sources and its env. */
function deploymentEnv(resources: Resource[], name: string): { env: Env; container: Container } {
  const deployment = resources.find((r) => r.kind === 'Deployment' && r.metadata.name === name);
  expect(deployment, name).toBeDefined();
  const [container, ...others] = deployment!.spec!.template.spec.containers;
  expect(others).toEqual([]);
  const env: Env = {};
  for (const from of container!.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const source = resources.find((r) => r.kind === kind && r.metadata.name === ref?.name);
    expect(source, `${name}: ${kind} ${ref?.name}`).toBeDefined();
    Object.assign(env, source!.data ?? {}, source!.stringData ?? {});
  }
  for (const { name: key, value } of container!.env ?? []) env[key] = value ?? '';
  return { env, container: container! };
}

/** The variables the harness gives every svc process (its `shared` block and the S3 server's), read from its source. */
function harnessSharedVariables(): string[] {
  const source = read('test/cluster/harness.ts');
  const block = /const shared = \{([\s\S]*?)\n {4}\};/.exec(source)?.[1];
  expect(block, 'test/cluster/harness.ts: the `shared` environment block').toBeDefined();
  const names = [...block!.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
  if (block!.includes('...s3.env(')) names.push('SVC_BLOB_STORE', 'SVC_BLOB_STORE_ENDPOINT', ...AWS_SDK);
  // Node's own compile cache, not svc state; each process's SVC_DATA_DIR is set beside `shared`.
  return [...names.filter((n) => n !== 'NODE_COMPILE_CACHE'), 'SVC_DATA_DIR'];
}

describe('deployment manifests', () => {
  const compose = composeServices();
  const resources = kubernetesResources();
  const composeApi = Object.fromEntries(Object.entries(compose['svc-api']!.environment).map(([k, v]) => [k, interpolate(v)]));
  const composeWorker = compose['svc-worker']!.environment;
  const api = deploymentEnv(resources, 'svc-api');
  const worker = deploymentEnv(resources, 'svc-worker');

  it('compose and Kubernetes give the API and the worker the same variables, each one svc or the AWS SDK reads', () => {
    const names = Object.keys(composeApi).sort();
    expect(Object.keys(composeWorker).sort()).toEqual(names);
    expect(Object.keys(api.env).sort()).toEqual(names);
    expect(Object.keys(worker.env).sort()).toEqual(names);
    expect(names.filter((n) => !KNOWN.has(n))).toEqual([]);
  });

  it('sets every variable the cluster harness gives all its processes', () => {
    const missing = harnessSharedVariables().filter((n) => !(n in composeApi));
    expect(missing).toEqual([]);
  });

  it('sets values config.ts accepts, and key placeholders it refuses', () => {
    expect(() => loadConfig(composeApi)).not.toThrow();
    // The Secret's placeholder keys stop svc at start instead of sealing payloads or secrets with a published key.
    expect(() => loadConfig({ ...api.env, SVC_SECRET_KEYS: SAMPLE_SECRET_KEYS })).toThrow(/SVC_TEMPORAL_PAYLOAD_KEYS/);
    expect(() => loadConfig({ ...api.env, SVC_TEMPORAL_PAYLOAD_KEYS: SAMPLE_PAYLOAD_KEYS })).toThrow(/SVC_SECRET_KEYS/);
    const config = loadConfig({ ...api.env, ...SAMPLE_KEYS });
    expect(config.blobStore).toMatchObject({ kind: 's3' });
    expect(config.temporalAddress).toBeDefined();
  });

  it('runs each role with the probes it serves: readiness and liveness on the API, none on the worker', () => {
    expect(compose['svc-api']!.command).toEqual(['node', 'main.ts', 'api']);
    expect(compose['svc-worker']!.command).toEqual(['node', 'main.ts', 'worker']);
    expect(api.container.args).toEqual(['node', 'main.ts', 'api']);
    expect(worker.container.args).toEqual(['node', 'main.ts', 'worker']);
    const port = api.container.ports!.find((p) => p.name === api.container.readinessProbe!.httpGet.port);
    expect(String(port?.containerPort)).toBe(api.env.PORT);
    expect(api.container.readinessProbe!.httpGet.path).toBe('/api/v1/health/ready');
    expect(api.container.livenessProbe!.httpGet.path).toBe('/api/v1/health');
    expect([worker.container.readinessProbe, worker.container.livenessProbe, worker.container.startupProbe]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
