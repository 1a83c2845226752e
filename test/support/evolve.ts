// An app whose manifest declares evolve slots and a token, for the evolve tests.

export const EVOLVE_MANIFEST = {
  evolve: {
    slots: [
      { name: 'header', aliases: ['top'] },
      { name: 'footer', description: 'The closing line' },
    ],
    tokens: [{ name: '--accent-hue', slot: 'header', min: 0, max: 360, default: 200, unit: 'deg' }],
  },
};

export const EVOLVE_PAGE =
  '<!doctype html><html><head><title>tuned</title>' +
  '<style>header{--accent-hue:200deg;color:hsl(var(--accent-hue) 80% 40%)}</style></head>' +
  '<body><header data-evolve="header"><h1 id="title">Hello</h1></header>' +
  '<main><p data-evolve="footer" id="footer">Old <b>words</b></p></main>' +
  '<script src="app.js"></script></body></html>';

export const evolveFiles = (script = 'document.title = "ran";') => [
  { path: 'index.html', encoding: 'utf8' as const, content: EVOLVE_PAGE },
  { path: 'app.js', encoding: 'utf8' as const, content: script },
];
