import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [sveltekit()],
  // The app's API calls go to its own origin (ui-server.ts serves /api/v1 next to the files).
  define: { 'import.meta.env.VITE_API': JSON.stringify('') },
  build: { reportCompressedSize: false },
});
