// SDK names. Legacy names stay accepted forever (Versioning 6) and are normalized to the
// SDK that now implements them, so everything downstream sees canonical names only.
import { z } from 'zod';

export const SDK_NAMES = ['vision', 'voice', 'video', 'model', 'modeling', 'semantic', 'evolve', 'ui'] as const;
export type SdkName = (typeof SDK_NAMES)[number];

export const LEGACY_SDK_NAMES = {
  data: 'semantic',
  connect: 'semantic',
  workflow: 'semantic',
  auth: 'semantic',
  log: 'semantic',
  billing: 'semantic',
  improve: 'evolve',
} as const satisfies Record<string, SdkName>;

export const ACCEPTED_SDK_NAMES = [...SDK_NAMES, ...(Object.keys(LEGACY_SDK_NAMES) as (keyof typeof LEGACY_SDK_NAMES)[])] as const;
export type AcceptedSdkName = (typeof ACCEPTED_SDK_NAMES)[number];

export function isAcceptedSdkName(name: string): name is AcceptedSdkName {
  return (ACCEPTED_SDK_NAMES as readonly string[]).includes(name);
}

export function normalizeSdkName(name: AcceptedSdkName): SdkName {
  return name in LEGACY_SDK_NAMES ? LEGACY_SDK_NAMES[name as keyof typeof LEGACY_SDK_NAMES] : (name as SdkName);
}

/** Canonical, de-duplicated list in the order of SDK_NAMES (a set; order carries no meaning). */
export function normalizeSdkList(names: readonly AcceptedSdkName[]): SdkName[] {
  const wanted = new Set(names.map(normalizeSdkName));
  return SDK_NAMES.filter((name) => wanted.has(name));
}

export const sdkSchema = z.array(z.enum(ACCEPTED_SDK_NAMES)).max(15).transform(normalizeSdkList).default([]);
