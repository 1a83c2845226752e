// Mirrors the Temporal UI's own Tailwind setup. The package's exports define only `import` paths,
// so its preset is loaded by file path, and its components are scanned for class names.
import defaultTheme from 'tailwindcss/defaultTheme.js';
import preset from './node_modules/@temporalio/ui/dist/theme/preset.js';

export default {
  presets: [preset],
  content: ['./src/**/*.{html,js,svelte}', './node_modules/@temporalio/ui/dist/**/*.{svelte,js}'],
  darkMode: ['selector', '[data-theme="dark"]'],
  theme: {
    fontFamily: {
      sans: ['Inter', ...defaultTheme.fontFamily.sans],
      mono: ['Noto Sans Mono', ...defaultTheme.fontFamily.mono],
    },
    extend: { animation: { 'spin-slow': 'spin 3s linear infinite' }, zIndex: { 100: '100' } },
  },
};
