// The API reference page (/docs/api): swagger-ui renders the service's own OpenAPI document. A file,
// not an inline script, because the page's CSP runs scripts of this origin only. No validator badge:
// it would send the document to validator.swagger.io.
const root = document.getElementById('reference');
root.replaceChildren();
window.SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  domNode: root,
  deepLinking: true,
  validatorUrl: null,
  // Tags start closed: the page opens as a short table of contents, and a deep link opens its tag.
  // Past 150 open rows swagger-ui switches to a virtualized list, where its deep links do not land.
  docExpansion: 'none',
  // swagger-ui's server list is a <select> with no label: name it for screen readers.
  onComplete: () => document.getElementById('servers')?.setAttribute('aria-label', 'Server'),
});
