import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';

// The browser pages: web sign-in and the device approval page at the
// verification address. Static HTML; the pages' scripts call the JSON API.
// They are pages, not API operations, so they are not in the OpenAPI document.

const ASSETS = new Map(
  ['web.css', 'common.js', 'signin.js', 'device.js'].map((name) => [
    name,
    {
      body: readFileSync(new URL(`./assets/${name}`, import.meta.url)),
      type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
    },
  ]),
);

function page(title: string, script: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc</title>
<link rel="stylesheet" href="/web/assets/web.css">
<script type="module" src="/web/assets/${script}"></script>
</head>
<body><main>
${body}
<p id="message" class="message" role="alert" hidden></p>
</main></body>
</html>`;
}

const SIGN_IN = page(
  'Sign in',
  'signin.js',
  `<h1>Sign in to svc</h1>
<form id="signin">
  <label for="login">Username or email</label>
  <input id="login" name="login" autocomplete="username" required maxlength="254" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
  <button type="submit">Sign in</button>
</form>
<form id="change" hidden>
  <label for="currentPassword">Temporary password</label>
  <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required maxlength="256">
  <label for="newPassword">New password (at least 12 characters)</label>
  <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="12" maxlength="256">
  <label for="confirmPassword">New password again</label>
  <input id="confirmPassword" name="confirmPassword" type="password" autocomplete="new-password" required minlength="12" maxlength="256">
  <button type="submit">Change password and sign in</button>
</form>
<form id="activate" hidden>
  <p>You were invited to svc. Choose a password to activate your account.</p>
  <label for="activatePassword">Choose a password (at least 12 characters)</label>
  <input id="activatePassword" name="activatePassword" type="password" autocomplete="new-password" required minlength="12" maxlength="256">
  <label for="activateConfirm">Chosen password again</label>
  <input id="activateConfirm" name="activateConfirm" type="password" autocomplete="new-password" required minlength="12" maxlength="256">
  <button type="submit">Activate and sign in</button>
</form>`,
);

const DEVICE = page(
  'Approve a device',
  'device.js',
  `<h1>Approve a device login</h1>
<p class="who"><span id="who"></span> · <button id="signout" class="secondary" type="button">Sign out</button></p>
<form id="enter" hidden>
  <label for="code">Code shown on your device</label>
  <input id="code" name="code" placeholder="BCDF-GHJK" autocomplete="off" required maxlength="20">
  <button type="submit">Continue</button>
</form>
<section id="confirm" hidden>
  <p><strong id="client"></strong> asks to sign in with code <strong id="shown-code"></strong>.
  Approve only if you started this on your own device.</p>
  <label for="company">Act for</label>
  <select id="company"></select>
  <button id="approve" type="button">Approve</button>
  <button id="deny" type="button" class="secondary">Deny</button>
</section>
<section id="done" hidden></section>`,
);

function sendPage(ctx: Context, html: string): void {
  ctx.type = 'text/html; charset=utf-8';
  // The device page's address carries the user code: never leak it in a Referer.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  ctx.body = html;
}

export function pagesRouter(): Router {
  const router = new Router();
  router.get('/signin', (ctx) => sendPage(ctx, SIGN_IN));
  router.get('/device', (ctx) => sendPage(ctx, DEVICE));
  router.get('/web/assets/:name', (ctx, next) => {
    const asset = ASSETS.get(ctx.params.name!);
    if (!asset) return next();
    ctx.type = asset.type;
    // Revalidated, not stored blindly: assets change with each release. (nosniff and the
    // no-store default for pages come from the security-headers middleware.)
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = asset.body;
  });
  return router;
}
