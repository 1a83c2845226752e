import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiDeps } from '../deps.ts';
import { mountApiReference } from './api-reference.ts';
import { serveLanding } from './landing.ts';

// The browser pages: web sign-in and sign-out, the landing page, the device approval page at the
// verification address, the OAuth authorization page, the app log and the API reference. Static HTML; the pages' scripts call the JSON API.
// They are pages, not API operations, so they are not in the OpenAPI document.

const ASSETS = new Map(
  [
    'web.css',
    'common.js',
    'signin.js',
    'signout.js',
    'device.js',
    'log.js',
    'authorize.js',
    'reference.js',
    'reference.css',
    'module.js',
  ].map((name) => [
    name,
    {
      body: readFileSync(new URL(`./assets/${name}`, import.meta.url)),
      type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
    },
  ]),
);

function page(title: string, script: string, body: string, mainClass = '', stylesheet = '/web/assets/web.css'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc</title>
<link rel="stylesheet" href="${stylesheet}">
<script type="module" src="/web/assets/${script}"></script>
</head>
<body><main${mainClass ? ` class="${mainClass}"` : ''}>
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

// Where the platform pages' "Sign out" leads: they run no script, and ending a session takes a click here.
const SIGN_OUT = page(
  'Sign out',
  'signout.js',
  `<h1>Sign out of svc</h1>
<p id="who" class="who"></p>
<button id="signout" type="button" hidden>Sign out</button>
<p><a href="/">Back to svc</a></p>`,
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

// OAuth authorization for MCP hosts (/oauth/authorize?…, api/oauth/routes.ts): sign-in, then approve.
const AUTHORIZE = page(
  'Allow an app host',
  'authorize.js',
  `<h1>Allow an app host</h1>
<p class="who"><span id="who"></span> · <button id="signout" class="secondary" type="button">Sign out</button></p>
<section id="confirm" hidden>
  <p><strong id="client"></strong> asks to use <strong id="app"></strong> as you, with the rights of a <strong id="role"></strong>.
  It will be sent back to <strong id="redirect"></strong>. Approve only if you started this from that host.</p>
  <button id="approve" type="button">Approve</button>
  <button id="deny" type="button" class="secondary">Deny</button>
</section>`,
);

// The app log for the app's developers: /web/log?namespace=<ns>&slug=<slug> (spec E). The interface
// stays hidden until the log answers: anyone else sees only why they are refused.
const LOG = page(
  'App log',
  'log.js',
  `<h1>App log · <span id="app"></span></h1>
<p class="who"><span id="who"></span> · <a href="/signout">Sign out</a></p>
<div id="log" hidden>
<ul id="figures" class="figures" aria-label="Last 30 days"></ul>
<h2>Usage by day</h2>
<svg id="chart" class="chart" role="img" aria-label="Usage by day, last 30 days"></svg>
<h2>Events</h2>
<form id="filters" class="filters">
  <div><label for="kind">Kind</label><select id="kind" name="kind">
    <option value="">all</option><option>usage</option><option>feedback</option><option>error</option>
    <option>action</option><option>share</option><option>release</option></select></div>
  <div><label for="name">Name</label><input id="name" name="name" maxlength="100"></div>
  <div><label for="username">Visitor (username)</label><input id="username" name="username" maxlength="64" autocomplete="off"></div>
  <div><label for="status">Feedback status</label><select id="status" name="status">
    <option value="">any</option><option>open</option><option>planned</option><option>done</option><option>dismissed</option></select></div>
  <div><button type="submit">Filter</button></div>
</form>
<div class="table"><table class="log"><thead><tr><th>Time (UTC)</th><th>Kind</th><th>Name</th><th>Visitor</th><th>Version</th><th>Details</th><th>Status</th></tr></thead>
<tbody id="events"></tbody></table></div>
<button id="more" class="secondary" type="button" hidden>More</button>
</div>`,
  'wide',
);

// An application module page for the company's people: /web/modules?rid=<module rid>&page=<page id>
// (docs/api/workshop.md). Platform HTML in the platform's app look (the SDK's ui.css); its script
// evaluates the page with the session, runs the forms' actions and follows the auto-refresh stream.
const MODULE = page(
  'Application module',
  'module.js',
  `<header class="svc-row"><h1><span id="module"></span> · <span id="title"></span></h1>
<p class="svc-muted"><span id="who"></span> · <a href="/signout">Sign out</a></p></header>
<div id="widgets" class="svc-stack" aria-live="polite"></div>`,
  'svc-app',
  '/developer/sdk/v1/ui.css',
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

export function pagesRouter(deps: ApiDeps): Router {
  const router = new Router();
  router.get('/', (ctx) => serveLanding(ctx, deps));
  router.get('/signin', (ctx) => sendPage(ctx, SIGN_IN));
  router.get('/signout', (ctx) => sendPage(ctx, SIGN_OUT));
  router.get('/device', (ctx) => sendPage(ctx, DEVICE));
  router.get('/web/log', (ctx) => sendPage(ctx, LOG));
  router.get('/web/modules', (ctx) => sendPage(ctx, MODULE));
  router.get('/oauth/authorize', (ctx) => sendPage(ctx, AUTHORIZE));
  mountApiReference(router);
  router.get('/web/assets/:name', (ctx, next) => {
    const asset = ASSETS.get(ctx.params.name!);
    if (!asset) return next();
    ctx.type = asset.type;
    // Revalidated, not stored blindly: assets change with each release. (nosniff and the
    // no-store default for pages come from the request-frame middleware.)
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = asset.body;
  });
  return router;
}
