import { describe, expect, it } from 'vitest';
import { renderOverlay, resolveOverlay } from '../../../domain/evolve/index.ts';
import { manifestSchema } from '../../../schemas/manifest/index.ts';
import { EVOLVE_MANIFEST, EVOLVE_PAGE } from '../../support/evolve.ts';

// The overlay without a service: how improvements resolve on a version, and what the page gets.

const manifest = (extra: object = {}) =>
  manifestSchema.parse({ manifestVersion: 1, slug: 'tuned', version: '1.0.0', title: 'Tuned', ...EVOLVE_MANIFEST, ...extra });
const version = (extra: object = {}) => ({ version: '1.0.0', manifest: manifest(extra) });

describe('resolveOverlay', () => {
  it('lets later improvements win, holds values within the current range, drops what the version lacks or baked', () => {
    const overlay = resolveOverlay('cell-acme/tuned', version({ evolve: { ...EVOLVE_MANIFEST.evolve, baked: ['evi_baked'] } }), [
      {
        id: 'evi_a',
        changes: [
          { kind: 'token', token: '--accent-hue', value: 10 },
          { kind: 'slot', slot: 'top', text: 'A' },
        ],
      },
      { id: 'evi_b', changes: [{ kind: 'token', token: '--accent-hue', value: 999 }] },
      { id: 'evi_gone', changes: [{ kind: 'slot', slot: 'sidebar', hidden: true }] },
      { id: 'evi_baked', changes: [{ kind: 'slot', slot: 'footer', hidden: true }] },
    ]);
    expect(overlay).toEqual({
      app: 'cell-acme/tuned',
      version: '1.0.0',
      improvements: ['evi_a', 'evi_b'],
      tokens: [{ slot: 'header', token: '--accent-hue', value: 360, unit: 'deg' }],
      slots: [{ slot: 'header', text: 'A' }],
    });
  });
});

describe('renderOverlay', () => {
  const overlayOf = (changes: object[]) => resolveOverlay('cell-acme/tuned', version(), [{ id: 'evi_x', changes: changes as never }]);

  it('leaves a page without improvements as it is', () => {
    expect(renderOverlay(EVOLVE_PAGE, overlayOf([]), manifest())).toBe(EVOLVE_PAGE);
  });

  it('writes text as text into every region of the slot (aliases included), nested elements and all, and CSS last in the head', () => {
    const page =
      '<html><head><style>x{}</style></head><body><div data-evolve="top"><div>in <div>deep</div></div></div>' +
      '<p data-evolve="footer">a</p><p data-evolve="footer">b</p><img data-evolve="footer"></body></html>';
    const out = renderOverlay(
      page,
      overlayOf([
        { kind: 'slot', slot: 'header', text: '<script>alert(1)</script>', order: 2 },
        { kind: 'slot', slot: 'footer', text: 'Bye', hidden: true },
      ]),
      manifest(),
    );
    expect(out).toBe(
      '<html><head><style>x{}</style>' +
        '<style data-svc-evolve>:root [data-evolve="header"],:root [data-evolve="top"]{order:2}:root [data-evolve="footer"]{display:none!important}</style>' +
        '</head><body><div data-evolve="top">&lt;script&gt;alert(1)&lt;/script&gt;</div>' +
        '<p data-evolve="footer">Bye</p><p data-evolve="footer">Bye</p><img data-evolve="footer"></body></html>',
    );
  });

  it('never touches a script or an unclosed region, and stays linear on a long page', () => {
    const page = `<script data-evolve="footer">run()</script><p data-evolve="footer">open${'<p>x'.repeat(50_000)}`;
    const out = renderOverlay(page, overlayOf([{ kind: 'slot', slot: 'footer', text: 'T' }]), manifest());
    expect(out).toBe(page);
  });
});
