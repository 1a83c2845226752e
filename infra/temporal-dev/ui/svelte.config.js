// SvelteKit builds the UI as a static single-page app: every path falls back to index.html and
// the UI's own client-side router takes over (as Temporal's ui-server serves it).
import adapter from '@sveltejs/adapter-static';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html' }),
    prerender: { entries: [] },
  },
};
