import { describe, expect, it } from 'vitest';
import { attributeMap, gateOf, meetsGate, NOBODY, type PolicySubject, policyGates } from '../../../domain/policy/index.ts';
import type { ObjectSecurityPolicy } from '../../../schemas/object-security.ts';

// The rule of object and property security policies, on its own: what a principal must meet.

const subject = (attributes: Record<string, string[]>, markings: string[] = []): PolicySubject => ({
  clearance: new Map(markings.map((m) => [m, 'use' as const])),
  attributes: attributeMap(attributes),
});
const byRegion = { type: 'userAttribute', property: 'region', attribute: 'region' } as const;
const secret = { type: 'marking', markingId: 'mkg_secret00000' } as const;
const object = (values: Record<string, unknown>) => new Map(Object.entries(values));

describe('security policy gates', () => {
  it('a marking condition is decided by the principal alone; an attribute condition leaves a term per object', () => {
    expect(gateOf([secret], subject({}, ['mkg_secret00000']))).toBe(true);
    expect(gateOf([secret], subject({}))).toBe(false);
    expect(gateOf([secret, byRegion], subject({ region: ['eu', 'us'] }, ['mkg_secret00000']))).toEqual([
      { property: 'region', values: ['eu', 'us'] },
    ]);
    // Failing outright wins over any term; no value of the attribute fails too.
    expect(gateOf([byRegion, secret], subject({ region: ['eu'] }))).toBe(false);
    expect(gateOf([byRegion], subject({}))).toBe(false);
  });

  it('an object meets a term when its string property equals one of the values', () => {
    const gate = gateOf([byRegion], subject({ region: ['eu', 'us'] }));
    expect(meetsGate(gate, object({ region: 'eu' }))).toBe(true);
    expect(meetsGate(gate, object({ region: 'apac' }))).toBe(false);
    expect(meetsGate(gate, object({ region: null }))).toBe(false);
    expect(meetsGate(gate, object({ region: 1 }))).toBe(false);
  });

  it('attribute names are looked up as data: constructor and toString are names like any other; U+0000 values never match', () => {
    const onConstructor = { type: 'userAttribute', property: 'region', attribute: 'constructor' } as const;
    expect(gateOf([onConstructor], NOBODY)).toBe(false);
    expect(gateOf([{ ...onConstructor, attribute: 'toString' }], subject({}))).toBe(false);
    expect(gateOf([onConstructor], subject({ constructor: ['eu'] }))).toEqual([{ property: 'region', values: ['eu'] }]);
    expect(gateOf([byRegion], subject({ region: ['e\u0000u'] }))).toBe(false);
  });

  it('a property named by several policies must pass them all; the object gate is apart', () => {
    const policy: ObjectSecurityPolicy = {
      objectPolicy: { conditions: [byRegion] },
      propertyPolicies: [
        { properties: ['salary', 'notes'], conditions: [secret] },
        { properties: ['salary'], conditions: [{ type: 'userAttribute', property: 'team', attribute: 'team' }] },
      ],
    };
    const cleared = policyGates(policy, subject({ region: ['eu'], team: ['a'] }, ['mkg_secret00000']));
    expect(cleared.object).toEqual([{ property: 'region', values: ['eu'] }]);
    expect(cleared.properties.get('notes')).toBe(true);
    expect(cleared.properties.get('salary')).toEqual([{ property: 'team', values: ['a'] }]);
    const uncleared = policyGates(policy, subject({ region: ['eu'], team: ['a'] }));
    expect(uncleared.properties.get('salary')).toBe(false);
    expect(policyGates({ objectPolicy: null, propertyPolicies: [] }, NOBODY).object).toBe(true);
  });
});
