// Protobuf plumbing: the compiled Temporal API root shipped with @temporalio/proto, plus
// helpers that turn wire bytes into plain objects (numbers for int64/enums) and back.
import { createRequire } from 'node:module';

/** A decoded protobuf message as a plain object (camelCase fields, numbers for int64 and enums). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = Record<string, any>;

interface PbType {
  fullName: string;
  decode(bytes: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  fromObject(object: object): object;
  toObject(message: object, options: object): Msg;
}
interface PbMethod {
  name: string;
  requestType: string;
  responseType: string;
  resolve(): void;
  resolvedRequestType: PbType;
  resolvedResponseType: PbType;
  /** Method options such as `(google.api.http)`, as parsed from the descriptor. */
  parsedOptions?: Record<string, unknown>[];
}
interface PbService {
  fullName: string;
  methods: Record<string, PbMethod>;
}
interface PbEnum {
  values: Record<string, number>;
}
interface PbRoot {
  lookupType(name: string): PbType;
  lookupService(name: string): PbService;
  lookupEnum(name: string): PbEnum;
}

const require = createRequire(import.meta.url);
const root = require('@temporalio/proto/protos/json-module') as PbRoot;

export function lookupService(name: string): PbService {
  return root.lookupService(name);
}

const types = new Map<string, PbType>();
export function lookupType(name: string): PbType {
  let t = types.get(name);
  if (!t) {
    t = root.lookupType(name);
    types.set(name, t);
  }
  return t;
}

const TO_OBJECT = { longs: Number, enums: Number, defaults: false };

export function decodeMessage(type: PbType, bytes: Uint8Array): Msg {
  return type.toObject(type.decode(bytes), TO_OBJECT);
}

export function encodeMessage(type: PbType, message: Msg): Buffer {
  return Buffer.from(type.encode(type.fromObject(message)).finish());
}

/** Reads the numeric values of a proto enum, checking at load time that every listed name exists. */
export function enumValues<K extends string>(enumName: string, prefix: string, keys: readonly K[]): Record<K, number> {
  const values = root.lookupEnum(enumName).values;
  const out = {} as Record<K, number>;
  for (const key of keys) {
    const v = values[prefix + key];
    if (v === undefined) throw new Error(`enum ${enumName} has no ${prefix}${key}`);
    out[key] = v;
  }
  return out;
}

/** Maps an attributes field name (`timerFiredEventAttributes`) to its EventType value. */
const eventTypes = root.lookupEnum('temporal.api.enums.v1.EventType').values;
const eventTypeByAttr = new Map<string, number>();
export function eventTypeFor(attrField: string): number {
  let v = eventTypeByAttr.get(attrField);
  if (v === undefined) {
    const snake = attrField
      .replace(/EventAttributes$/, '')
      .replace(/([A-Z])/g, '_$1')
      .toUpperCase();
    v = eventTypes['EVENT_TYPE_' + snake];
    if (v === undefined) throw new Error(`no event type for ${attrField}`);
    eventTypeByAttr.set(attrField, v);
  }
  return v;
}
