// The layering check (run by `npm test`): which layer may import which, and no cycles.
// docs/ARCHITECTURE.md explains the layers.

// infra/temporal-dev is laid out by Temporal service (its README's Layout): each folder may import
// only the folders below it. From the bottom: common/; matching/; the visibility query language
// (visibility/query.ts); history/; then visibility/, scheduler/ and deployments/, which know
// history's runs but not each other; namespace/, which composes a namespace's components;
// persistence/; frontend/; the entry points at the package's root. test/ and bench/ may import any.
const TEMPORAL_DEV = 'infra/temporal-dev/';
const TEMPORAL_DEV_LAYERS = [
  ['common', ['common/']],
  ['matching', ['common/', 'matching/']],
  ['visibility/query[.]ts$', ['common/']],
  ['history', ['common/', 'matching/', 'visibility/query[.]ts$', 'history/']],
  ['visibility', ['common/', 'matching/', 'history/', 'visibility/']],
  ['scheduler', ['common/', 'matching/', 'history/', 'visibility/query[.]ts$', 'scheduler/']],
  ['deployments', ['common/', 'matching/', 'history/', 'deployments/']],
  ['namespace', ['common/', 'matching/', 'history/', 'visibility/', 'scheduler/', 'deployments/', 'namespace/']],
  ['persistence', ['common/', 'matching/', 'history/', 'visibility/', 'scheduler/', 'deployments/', 'namespace/', 'persistence/']],
  // The UI server serves what the UI build (an entry point of its own) made.
  [
    'frontend',
    ['common/', 'matching/', 'history/', 'visibility/', 'scheduler/', 'deployments/', 'namespace/', 'frontend/', 'ui-build[.]ts$'],
  ],
];
const temporalDevLayerRules = TEMPORAL_DEV_LAYERS.map(([from, allowed]) => ({
  name: `temporal-dev-${from.replace('[.]ts$', '').replace('/', '-')}-layer`,
  severity: 'error',
  comment: `infra/temporal-dev/${from} imports only ${allowed.join(', ')} of its package (the folder layering in its README).`,
  from: { path: `^${TEMPORAL_DEV}${from}` },
  to: { path: `^${TEMPORAL_DEV}`, pathNot: allowed.map((a) => `^${TEMPORAL_DEV}${a}`) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'temporal-dev-no-cycles',
      severity: 'error',
      comment:
        'No import cycle in infra/temporal-dev, type-only imports included: each component declares the narrow interface it needs of its namespace or run (RunHost, StartsHost, ...), which the namespace implements.',
      from: { path: `^${TEMPORAL_DEV}` },
      to: { circular: true },
    },
    ...temporalDevLayerRules,
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles hide the order modules load in and couple layers (type-only imports load nothing).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'capabilities-meet-at-their-faces',
      severity: 'error',
      comment:
        'A capability folder is entered through its index.ts only (also by type-only imports): its other files are its own business.',
      from: { path: '^domain/([^/]+)/' },
      to: { path: '^domain/[^/]+/', pathNot: ['^domain/$1/', '^domain/[^/]+/index[.]ts$'] },
    },
    {
      name: 'adapters-meet-capabilities-at-their-faces',
      severity: 'error',
      comment: 'Adapters, the composition root, infra/ and bench/ use a capability through its index.ts only (tests may reach inside).',
      from: { pathNot: '^(domain|test)/' },
      to: { path: '^domain/[^/]+/', pathNot: '^domain/[^/]+/index[.]ts$' },
    },
    {
      name: 'schemas-are-pure-contracts',
      severity: 'error',
      comment: 'schemas/ is shared with the CLI and the browser SDK: it imports only other contracts.',
      from: { path: '^schemas/' },
      to: { path: '^(domain|api|worker|workflows|activities|infra|test|bench|cli)/|^(main|service|config)[.]ts$' },
    },
    {
      name: 'cli-is-a-client',
      severity: 'error',
      comment: 'The CLI talks to the service over HTTP only; it shares the contracts in schemas/ and nothing else of the service.',
      from: { path: '^cli/' },
      to: {
        path: '^(domain|api|worker|workflows|activities|infra|test|bench)/|^(main|service|config)[.]ts$|^node_modules/(koa|@koa|@temporalio|kysely|pg)/',
      },
    },
    {
      name: 'domain-knows-no-adapter',
      severity: 'error',
      comment: 'The domain layer knows nothing of HTTP, Temporal or how the process starts.',
      from: { path: '^domain/' },
      to: {
        path: '^(api|worker|workflows|activities|infra|test|bench)/|^(main|service|config)[.]ts$|^node_modules/(koa|@koa|@temporalio)/',
      },
    },
    {
      name: 'api-is-only-http',
      severity: 'error',
      comment: 'The HTTP adapter calls use cases; it does not reach into Temporal or the composition root.',
      from: { path: '^api/' },
      to: { path: '^(worker|workflows|activities|infra|test|bench)/|^(main|service|config)[.]ts$|^node_modules/@temporalio/' },
    },
    {
      name: 'temporal-adapter-is-not-http',
      severity: 'error',
      comment: 'Workers, workflows and activities call use cases, never routes.',
      from: { path: '^(worker|workflows|activities)/' },
      to: { path: '^(api|test|bench)/|^(main|service|config)[.]ts$|^node_modules/(koa|@koa)/' },
    },
    {
      name: 'workflows-are-deterministic',
      severity: 'error',
      comment: 'Workflow code is bundled into the sandbox: its contract, the pure workflow keys, and types only.',
      from: { path: '^workflows/' },
      to: {
        path: '^(domain|api|infra|worker)/|^schemas/(?!workflow-keys[.]ts$|manifest/)|^node_modules/(?!@temporalio/workflow/)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'activities-only-by-type-in-workflows',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cli/dist/|infra/temporal-dev/(node_modules|ui)/)' },
    moduleSystems: ['es6'],
    // Type-only imports count too: a capability's face is its contract for types as well. (It warns
    // that TypeScript 7 has no compiler API yet; the swc parser reads type-only imports all the same.)
    tsPreCompilationDeps: true,
  },
};
