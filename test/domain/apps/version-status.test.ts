import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../../domain/apps/semver.ts';
import {
  onlineVersionIds,
  type ReleaseFact,
  rollbackTarget,
  type UpdateStatus,
  versionStatus,
} from '../../../domain/apps/version-status.ts';

// Property test: random histories driven through the spec's state table as an
// explicit state machine must give the statuses derived from pointers and records.

function prng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('derived update status', () => {
  it('matches the state table on 300 random histories', () => {
    for (let run = 0; run < 300; run++) {
      const rand = prng(run + 1);
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
      const versions: string[] = [];
      const model = new Map<string, UpdateStatus>();
      const records: ReleaseFact[] = [];
      const everTested = new Set<string>();
      let test: string | null = null;
      let production: string | null = null;

      for (let step = 0; step < 25; step++) {
        const op = rand();
        if (op < 0.3 || versions.length === 0) {
          let v: string;
          do v = `${Math.floor(rand() * 4)}.${Math.floor(rand() * 4)}.0`;
          while (versions.includes(v));
          versions.push(v);
          model.set(v, 'untested');
        } else if (op < 0.65) {
          const v = pick(versions);
          if (v === test) continue;
          // testing -> tested for the version leaving test (if it is not live)
          if (test && model.get(test) === 'testing') model.set(test, 'tested');
          if (model.get(v) === 'untested' || model.get(v) === 'tested') model.set(v, 'testing');
          records.push({ channel: 'test', action: 'enter_test', fromVersionId: test, toVersionId: v, seq: records.length + 1 });
          test = v;
          everTested.add(v);
        } else {
          const candidates = versions.filter((v) => everTested.has(v) && v !== production);
          if (candidates.length === 0) continue;
          const v = pick(candidates);
          const rollback = production !== null && compareVersions(v, production) < 0;
          if (production) model.set(production, rollback ? 'rolled_back' : 'superseded');
          model.set(v, 'live');
          records.push({
            channel: 'production',
            action: rollback ? 'rollback' : 'publish',
            fromVersionId: production,
            toVersionId: v,
            seq: records.length + 1,
          });
          production = v;
        }
        for (const v of versions) {
          expect(versionStatus(v, { testVersionId: test, productionVersionId: production }, records), `run ${run} step ${step} ${v}`).toBe(
            model.get(v),
          );
        }
      }
    }
  });
});

describe('online versions (whose _v/ files a channel tree serves)', () => {
  /** A history of channel moves, as promote-version writes them; versions named v1 < v2 < v3. */
  function history(moves: [channel: 'test' | 'production', action: ReleaseFact['action'], to: string][]) {
    const records: ReleaseFact[] = [];
    const pointers = { testVersionId: null as string | null, productionVersionId: null as string | null };
    for (const [channel, action, to] of moves) {
      const key = channel === 'test' ? 'testVersionId' : 'productionVersionId';
      records.push({ channel, action, fromVersionId: pointers[key], toVersionId: to, seq: records.length + 1 });
      pointers[key] = to;
    }
    return { pointers, records, online: (channel: 'test' | 'production') => onlineVersionIds(channel, pointers, records) };
  }
  const tested = (...vs: string[]) => vs.map((v) => ['test', 'enter_test', v] as ['test', 'enter_test', string]);

  it('after publishing v3 the superseded v1 is offline: production serves v3 and its rollback target v2; test serves its own', () => {
    const h = history([
      ...tested('v1', 'v2', 'v3'),
      ['production', 'publish', 'v1'],
      ['production', 'publish', 'v2'],
      ['production', 'publish', 'v3'],
    ]);
    expect(h.online('production')).toEqual(['v3', 'v2']);
    expect(h.online('test')).toEqual(['v3']);
    expect(versionStatus('v1', h.pointers, h.records)).toBe('superseded');
  });

  it('a first publish has no rollback target; an empty channel serves nothing', () => {
    expect(history([]).online('production')).toEqual([]);
    expect(history([]).online('test')).toEqual([]);
    const h = history([...tested('v1'), ['production', 'publish', 'v1']]);
    expect([h.online('production'), rollbackTarget(h.pointers, h.records)]).toEqual([['v1'], null]);
  });

  it('rolling back to v2 takes v3 offline and makes v1, what production showed before v2 was published, the rollback target', () => {
    const h = history([
      ...tested('v1', 'v2', 'v3'),
      ['production', 'publish', 'v1'],
      ['production', 'publish', 'v2'],
      ['production', 'publish', 'v3'],
      ['production', 'rollback', 'v2'],
    ]);
    expect(h.online('production')).toEqual(['v2', 'v1']);
  });

  it('a version live only through a rollback (never published) has no rollback target', () => {
    const h = history([
      ...tested('v1', 'v2', 'v3'),
      ['production', 'publish', 'v1'],
      ['production', 'publish', 'v3'],
      ['production', 'rollback', 'v2'],
    ]);
    expect(h.online('production')).toEqual(['v2']);
  });

  it('the latest publish counts: v3 published again over v2 has v2 as its target, not v1', () => {
    const h = history([
      ...tested('v1', 'v2', 'v3'),
      ['production', 'publish', 'v1'],
      ['production', 'publish', 'v3'],
      ['production', 'rollback', 'v2'],
      ['production', 'publish', 'v3'],
    ]);
    expect(h.online('production')).toEqual(['v3', 'v2']);
  });
});

describe('semantic version order', () => {
  it('follows semver precedence, pre-releases included', () => {
    const ordered = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.10.0',
      '2.0.0',
    ];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect(Math.sign(compareVersions(ordered[i]!, ordered[j]!)), `${ordered[i]} vs ${ordered[j]}`).toBe(Math.sign(i - j));
      }
    }
  });
});
