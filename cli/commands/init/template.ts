import { SDK_BASE_PATH } from '../../../schemas/bundle/index.ts';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

/**
 * The files of a new app: a page with the platform's look and a script that asks the SDK who is
 * signed in. The SDK and ui.css come from the service the folder was created for (`baseUrl`): the
 * page's Content-Security-Policy admits them from there only. The code is in a file, since the
 * policy runs no inline script; a classic script loads the SDK with import() (docs/app-developers/sdk.md).
 */
export function appTemplate(baseUrl: string, title: string): { 'index.html': string; 'app.js': string } {
  const sdk = `${baseUrl}${SDK_BASE_PATH}`;
  const html = escapeHtml(title);
  return {
    'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${html}</title>
    <link rel="stylesheet" href="${sdk}ui.css">
    <script src="app.js" defer></script>
  </head>
  <body class="svc-app">
    <main class="svc-stack">
      <h1>${html}</h1>
      <p class="svc-card" id="me">Asking who you are…</p>
      <p class="svc-muted">Edit index.html and app.js, then <code>svc deploy</code>. Scripts go in files: the page runs no inline code.</p>
    </main>
  </body>
</html>
`,
    'app.js': `// The SDK of the service this app was created for (register "semantic" in plugin.json's sdk).
import('${sdk}semantic.js').then(async ({ createClient, isSvcError }) => {
  const out = document.getElementById('me');
  try {
    const me = await createClient().auth.me();
    out.textContent = \`Hello \${me.identity.username}: \${me.role ?? 'no role'} in \${me.app?.slug}, version \${me.version} (\${me.channel}).\`;
  } catch (error) {
    out.textContent = isSvcError(error) ? \`\${error.code}: \${error.message}\` : String(error);
    out.classList.add('svc-error');
  }
});
`,
  };
}
