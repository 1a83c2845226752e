// The layering check (run by `npm test`): which layer may import which, and no cycles.
// docs/ARCHITECTURE.md explains the layers.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
