// Names from requests (property, column, parameter names) are looked up in objects built from
// definitions. A plain object answers `constructor`, `toString` or `__proto__` from its prototype,
// so such lookups go through these: only a record's own keys count.

/** A copy of `record` without a prototype: any lookup by name finds its own keys only. */
export function ownRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

/** `record[key]` when `key` is the record's own, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
