// The proto3 JSON mapping as Temporal's HTTP API writes and reads it (Go's protojson through
// go.temporal.io/api/temporalproto): camelCase names (snake_case accepted), 64-bit integers as
// strings, enum names, base64 bytes, RFC 3339 timestamps, "1.5s" durations, `@type` for Any,
// default values left out. With payload shorthand (the frontend's default), a `json/plain` payload
// is its JSON value and `json/protobuf` the message with `_protoMessageType`.
import { invalidArgument } from '../common/errors.ts';
import { decodeMessage, encodeMessage, lookupType, type Msg } from '../common/proto.ts';

export interface JsonOptions {
  payloadShorthand: boolean;
}

// The slice of protobufjs reflection used here.
interface PbEnum {
  name: string;
  values: Record<string, number>;
  valuesById: Record<number, string>;
}
interface PbField {
  name: string;
  jsonName: string;
  protoName: string;
  type: string;
  repeated: boolean;
  map: boolean;
  keyType?: string;
  partOf: object | null;
  resolvedType: PbMessageType | PbEnum | null;
}
export interface PbMessageType {
  fullName: string;
  fieldsArray: PbField[];
  fields: Record<string, PbField>;
  resolveAll(): PbMessageType;
  fromObject(object: object): object;
  toObject(message: object, options: object): Msg;
}

const resolved = new WeakSet<PbMessageType>();
function fieldsOf(type: PbMessageType): PbField[] {
  if (!resolved.has(type)) {
    type.resolveAll(); // fills jsonName/protoName and resolvedType
    resolved.add(type);
  }
  return type.fieldsArray;
}
const isMessageType = (t: PbField['resolvedType']): t is PbMessageType => t !== null && 'fieldsArray' in t;
const isEnum = (t: PbField['resolvedType']): t is PbEnum => t !== null && 'valuesById' in t;

const INT64 = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INT32 = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const WRAPPERS = new Set(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => `google.protobuf.${w}Value`),
);
const PAYLOAD = 'temporal.api.common.v1.Payload';
const PAYLOADS = 'temporal.api.common.v1.Payloads';

// ---------------------------------------------------------------------------------------------
// Writing: a message in the handlers' plain-object form -> JSON value

/** The JSON value of `message` (handler form: numbers for int64 and enums, Buffers for bytes). */
export function messageToJson(type: PbMessageType, message: Msg, options: JsonOptions): unknown {
  // fromObject/toObject normalize whatever the handler built exactly as the gRPC encoder reads it.
  const plain = type.toObject(type.fromObject(message), { longs: String, enums: Number, bytes: String });
  return writeMessage(type, plain, options);
}

function writeMessage(type: PbMessageType, obj: Msg, options: JsonOptions): unknown {
  const special = writeWellKnown(type, obj, options);
  if (special !== NOT_SPECIAL) return special;
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(type)) {
    const value = obj[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      const entries = Object.entries(value as Msg);
      if (entries.length === 0) continue;
      out[field.jsonName] = Object.fromEntries(entries.map(([k, v]) => [k, writeValue(field, v, options)]));
    } else if (field.repeated) {
      if ((value as unknown[]).length === 0) continue;
      out[field.jsonName] = (value as unknown[]).map((v) => writeValue(field, v, options));
    } else {
      // Proto3 fields without presence are left out at their default value, as protojson does.
      if (!field.partOf && !isMessageType(field.resolvedType) && isDefault(field, value)) continue;
      out[field.jsonName] = writeValue(field, value, options);
    }
  }
  return out;
}

function isDefault(field: PbField, value: unknown): boolean {
  if (isEnum(field.resolvedType)) return value === 0;
  if (INT64.has(field.type)) return value === '0';
  return value === 0 || value === '' || value === false;
}

function writeValue(field: PbField, value: unknown, options: JsonOptions): unknown {
  const t = field.resolvedType;
  if (isMessageType(t)) return writeMessage(t, value as Msg, options);
  if (isEnum(t)) return t.valuesById[value as number] ?? value; // unknown numbers stay numbers
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // "NaN", "Infinity"
  return value; // toObject already wrote int64 as strings and bytes as base64
}

const NOT_SPECIAL = Symbol('not special');

function writeWellKnown(type: PbMessageType, obj: Msg, options: JsonOptions): unknown {
  switch (type.fullName.replace(/^\./, '')) {
    case 'google.protobuf.Timestamp':
      return formatTimestamp(Number(obj.seconds ?? 0), obj.nanos ?? 0);
    case 'google.protobuf.Duration':
      return formatDuration(Number(obj.seconds ?? 0), obj.nanos ?? 0);
    case 'google.protobuf.Empty':
      return {};
    case 'google.protobuf.FieldMask':
      return ((obj.paths ?? []) as string[]).map(snakeToCamel).join(',');
    case 'google.protobuf.Struct':
      return Object.fromEntries(Object.entries((obj.fields ?? {}) as Msg).map(([k, v]) => [k, structValue(v)]));
    case 'google.protobuf.Value':
      return structValue(obj);
    case 'google.protobuf.ListValue':
      return ((obj.values ?? []) as Msg[]).map(structValue);
    case 'google.protobuf.Any':
      return writeAny(obj, options);
    case PAYLOAD:
      return options.payloadShorthand ? (payloadShorthand(obj) ?? NOT_SPECIAL) : NOT_SPECIAL;
    case PAYLOADS: {
      if (!options.payloadShorthand) return NOT_SPECIAL;
      // Shorthand only when every payload has one, as Temporal does.
      const values = ((obj.payloads ?? []) as Msg[]).map(payloadShorthand);
      return values.every((v) => v !== undefined) ? values : NOT_SPECIAL;
    }
  }
  if (WRAPPERS.has(type.fullName.replace(/^\./, ''))) {
    return obj.value ?? writeValue(fieldsOf(type)[0]!, defaultOf(fieldsOf(type)[0]!), options);
  }
  return NOT_SPECIAL;
}

function defaultOf(field: PbField): unknown {
  if (INT64.has(field.type)) return '0';
  if (field.type === 'bool') return false;
  if (field.type === 'string' || field.type === 'bytes') return '';
  return 0;
}

function structValue(v: Msg): unknown {
  if (v.structValue) return Object.fromEntries(Object.entries((v.structValue.fields ?? {}) as Msg).map(([k, x]) => [k, structValue(x)]));
  if (v.listValue) return ((v.listValue.values ?? []) as Msg[]).map(structValue);
  if (v.numberValue !== undefined) return v.numberValue;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return null;
}

function writeAny(obj: Msg, options: JsonOptions): unknown {
  const typeUrl = String(obj.type_url ?? obj.typeUrl ?? '');
  const inner = lookupType(typeUrl.slice(typeUrl.lastIndexOf('/') + 1)) as unknown as PbMessageType;
  const decoded = decodeMessage(inner as never, Buffer.from(String(obj.value ?? ''), 'base64'));
  const json = messageToJson(inner, decoded, options);
  // Well-known types inside Any keep their JSON form under "value".
  return json !== null && typeof json === 'object' && !Array.isArray(json)
    ? { '@type': typeUrl, ...json }
    : { '@type': typeUrl, value: json };
}

const BINARY_NULL = { metadata: { encoding: Buffer.from('binary/null').toString('base64') } };

/** The shorthand JSON of a payload (toObject form: base64 strings), or undefined when it has none. */
function payloadShorthand(p: Msg): unknown {
  const metadata = (p.metadata ?? {}) as Record<string, string>;
  const meta = (key: string) => (metadata[key] === undefined ? undefined : Buffer.from(metadata[key], 'base64').toString('utf8'));
  const keys = Object.keys(metadata).length;
  const data = () => Buffer.from(String(p.data ?? ''), 'base64').toString('utf8');
  switch (meta('encoding')) {
    case 'binary/null':
      return BINARY_NULL;
    case 'json/plain': {
      if (keys !== 1) return undefined;
      const value = JSON.parse(data()) as unknown;
      return value === null ? BINARY_NULL : value; // Go writes a nil value as the binary/null payload
    }
    case 'json/protobuf': {
      const messageType = meta('messageType');
      if (!messageType || keys !== 2) return undefined;
      const value = JSON.parse(data()) as Record<string, unknown> | null;
      return value === null ? BINARY_NULL : { ...value, _protoMessageType: messageType };
    }
    default:
      return undefined;
  }
}

function formatTimestamp(seconds: number, nanos: number): string {
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${iso}${fraction(nanos)}Z`;
}

function formatDuration(seconds: number, nanos: number): string {
  const negative = seconds < 0 || nanos < 0;
  return `${negative ? '-' : ''}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

/** Go's protojson: no fraction, or 3, 6 or 9 digits, whichever is shortest and exact. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (digits.endsWith('000000')) return `.${digits.slice(0, 3)}`;
  if (digits.endsWith('000')) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

// ---------------------------------------------------------------------------------------------
// Reading: JSON value -> the handlers' plain-object form

/** Parses the JSON of a `type` message into the form the gRPC server hands its handlers. */
export function messageFromJson(type: PbMessageType, json: unknown, options: JsonOptions): Msg {
  return toHandlerForm(type, readMessageJson(type, json, options));
}

/** Validates the JSON of a `type` message and reads it into protobufjs' `fromObject` input form. */
export function readMessageJson(type: PbMessageType, json: unknown, options: JsonOptions): Msg {
  return readMessage(type, json, options, type.fullName.replace(/^\./, ''));
}

/** `fromObject` input -> handler form, through the wire format, exactly as a gRPC request arrives. */
export function toHandlerForm(type: PbMessageType, obj: Msg): Msg {
  return decodeMessage(type as never, encodeMessage(type as never, obj));
}

/** Sets query-string texts at a field path of `target` (`fromObject` input form); false when no such field. */
export function setFieldPath(type: PbMessageType, target: Msg, path: string[], raw: string[], options: JsonOptions): boolean {
  let t = type;
  let obj = target;
  for (let i = 0; i < path.length; i++) {
    const field = findField(t, path[i]!);
    if (!field) return false;
    if (i === path.length - 1) {
      const values = raw.map((text) => readQueryText(field, text, options, path.join('.')));
      obj[field.name] = field.repeated ? values : values[values.length - 1];
      return true;
    }
    if (!isMessageType(field.resolvedType) || field.repeated) return false;
    obj[field.name] ??= {};
    obj = obj[field.name] as Msg;
    t = field.resolvedType;
  }
  return false;
}

/** A field by its JSON name or its proto (snake_case) name, as protojson and grpc-gateway accept both. */
export function findField(type: PbMessageType, name: string): PbField | undefined {
  return fieldsOf(type).find((f) => f.jsonName === name || f.protoName === name);
}

function readMessage(type: PbMessageType, json: unknown, options: JsonOptions, where: string): Msg {
  const special = readWellKnown(type, json, options, where);
  if (special !== NOT_SPECIAL) return special as Msg;
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw bad(where, `expected an object for ${type.fullName.replace(/^\./, '')}`);
  const out: Msg = {};
  for (const [key, value] of Object.entries(json)) {
    const field = findField(type, key);
    if (!field) throw bad(where, `unknown field "${key}"`);
    if (value === null && field.type !== 'google.protobuf.Value') continue;
    out[field.name] = readField(field, value, options, `${where}.${key}`);
  }
  return out;
}

function readField(field: PbField, value: unknown, options: JsonOptions, where: string): unknown {
  if (field.map) {
    if (typeof value !== 'object' || Array.isArray(value)) throw bad(where, 'expected an object');
    return Object.fromEntries(Object.entries(value as Msg).map(([k, v]) => [k, readSingle(field, v, options, `${where}.${k}`)]));
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw bad(where, 'expected an array');
    return value.map((v, i) => readSingle(field, v, options, `${where}[${i}]`));
  }
  return readSingle(field, value, options, where);
}

function readSingle(field: PbField, value: unknown, options: JsonOptions, where: string): unknown {
  const t = field.resolvedType;
  if (isMessageType(t)) return readMessage(t, value, options, where);
  if (isEnum(t)) {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string') {
      const n = enumNumber(t, value);
      if (n !== undefined) return n;
    }
    throw bad(where, `invalid value for enum ${t.name}: ${JSON.stringify(value)}`);
  }
  return readScalar(field.type, value, where);
}

/** Enum by name, also in the PascalCase short form Temporal accepts ("Running"). */
function enumNumber(t: PbEnum, name: string): number | undefined {
  if (t.values[name] !== undefined) return t.values[name];
  const long = `${t.name}_${name}`.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  if (t.values[long] !== undefined) return t.values[long];
  return /^-?\d+$/.test(name) ? Number(name) : undefined;
}

function readScalar(type: string, value: unknown, where: string): unknown {
  if (type === 'string') {
    if (typeof value !== 'string') throw bad(where, 'expected a string');
    return value;
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw bad(where, 'expected a boolean');
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw bad(where, 'expected base64');
    return Buffer.from(value, 'base64');
  }
  if (type === 'double' || type === 'float') {
    if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || Number.isNaN(n)) throw bad(where, 'expected a number');
    return n;
  }
  // Integers: JSON numbers or decimal strings (int64 is written as a string).
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) throw bad(where, `expected an integer`);
  if (INT32.has(type) || INT64.has(type)) return INT64.has(type) ? text : Number(text);
  throw bad(where, `unsupported field type ${type}`);
}

function readWellKnown(type: PbMessageType, json: unknown, options: JsonOptions, where: string): unknown {
  const name = type.fullName.replace(/^\./, '');
  switch (name) {
    case 'google.protobuf.Timestamp': {
      const m = typeof json === 'string' && /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i.exec(json);
      if (!m) throw bad(where, 'expected an RFC 3339 timestamp');
      const ms = Date.parse(`${m[1]}${m[3]}`);
      if (Number.isNaN(ms)) throw bad(where, 'expected an RFC 3339 timestamp');
      return { seconds: String(Math.floor(ms / 1000)), nanos: Number((m[2] ?? '.').slice(1).padEnd(9, '0')) };
    }
    case 'google.protobuf.Duration': {
      const m = typeof json === 'string' && /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(json);
      if (!m) throw bad(where, 'expected a duration such as "1.5s"');
      const sign = m[1] ? -1 : 1;
      return { seconds: String(sign * Number(m[2])), nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
    }
    case 'google.protobuf.Empty':
      return {};
    case 'google.protobuf.FieldMask':
      if (typeof json !== 'string') throw bad(where, 'expected a field mask string');
      return { paths: json === '' ? [] : json.split(',').map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) };
    case 'google.protobuf.Struct':
      if (json === null || typeof json !== 'object' || Array.isArray(json)) throw bad(where, 'expected an object');
      return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, toStructValue(v)])) };
    case 'google.protobuf.Value':
      return toStructValue(json);
    case 'google.protobuf.ListValue':
      if (!Array.isArray(json)) throw bad(where, 'expected an array');
      return { values: json.map(toStructValue) };
    case 'google.protobuf.Any': {
      if (json === null || typeof json !== 'object' || typeof (json as Msg)['@type'] !== 'string') throw bad(where, 'expected "@type"');
      const { '@type': typeUrl, ...rest } = json as Msg;
      const inner = lookupType(String(typeUrl).slice(String(typeUrl).lastIndexOf('/') + 1)) as unknown as PbMessageType;
      const wellKnown = inner.fullName.replace(/^\./, '').startsWith('google.protobuf.') && 'value' in rest;
      const value = messageFromJson(inner, wellKnown ? rest.value : rest, options);
      return { type_url: typeUrl, value: encodeMessage(inner as never, value) };
    }
    case PAYLOAD:
      return options.payloadShorthand ? readPayload(json) : NOT_SPECIAL;
    case PAYLOADS:
      if (!options.payloadShorthand || !Array.isArray(json)) return NOT_SPECIAL;
      return { payloads: json.map(readPayload) };
  }
  if (WRAPPERS.has(name)) return { value: readScalar(fieldsOf(type)[0]!.type, json, where) };
  return NOT_SPECIAL;
}

function toStructValue(v: unknown): Msg {
  if (v === null) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toStructValue) } };
  return { structValue: { fields: Object.fromEntries(Object.entries(v as Msg).map(([k, x]) => [k, toStructValue(x)])) } };
}

/** A payload in full form when it reads as one (as Temporal decides), else shorthand. */
function readPayload(json: unknown): Msg {
  if (json === null) return { metadata: { encoding: Buffer.from('binary/null') } };
  const full = json !== null && typeof json === 'object' && !Array.isArray(json) ? fullPayload(json as Msg) : undefined;
  if (full) return full;
  if (typeof json === 'object' && !Array.isArray(json) && typeof (json as Msg)._protoMessageType === 'string') {
    const { _protoMessageType: messageType, ...rest } = json as Msg;
    return {
      metadata: { encoding: Buffer.from('json/protobuf'), messageType: Buffer.from(messageType) },
      data: Buffer.from(goJson(rest)),
    };
  }
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(goJson(json)) };
}

function fullPayload(obj: Msg): Msg | undefined {
  const metadata = obj.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata) || !('encoding' in metadata)) return undefined;
  const decoded: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(metadata as Msg)) {
    const bytes = typeof v === 'string' ? base64(v) : undefined;
    if (!bytes) return undefined;
    decoded[k] = bytes;
  }
  const keys = Object.keys(obj);
  if (!('data' in obj)) return keys.length === 1 && decoded.encoding!.toString() === 'binary/null' ? { metadata: decoded } : undefined;
  const data = typeof obj.data === 'string' ? base64(obj.data) : undefined;
  return keys.length === 2 && data ? { metadata: decoded, data } : undefined;
}

function base64(text: string): Buffer | undefined {
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** JSON as Go's encoding/json writes a decoded value: object keys sorted. */
function goJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** A query-string value of a field, parsed as grpc-gateway does (enum names or numbers, base64 bytes, ...). */
function readQueryText(field: PbField, text: string, options: JsonOptions, where: string): unknown {
  const t = field.resolvedType;
  if (isMessageType(t)) {
    // Only the well-known types and wrappers have a text form.
    const name = t.fullName.replace(/^\./, '');
    if (WRAPPERS.has(name)) return { value: readQueryText(fieldsOf(t)[0]!, text, options, where) };
    const value = readWellKnown(t, text, options, where);
    if (value === NOT_SPECIAL) throw bad(where, 'a message field has no query-string form');
    return value;
  }
  if (isEnum(t)) return readSingle(field, text, options, where);
  switch (field.type) {
    case 'string':
      return text;
    case 'bytes':
      return readScalar('bytes', text, where);
    case 'bool':
      if (/^(1|t|true)$/i.test(text)) return true;
      if (/^(0|f|false)$/i.test(text)) return false;
      throw bad(where, 'expected a boolean');
    default:
      return readScalar(field.type, text, where);
  }
}

function snakeToCamel(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function bad(where: string, reason: string) {
  return invalidArgument(`invalid JSON at ${where}: ${reason}`);
}

export function typeOf(name: string): PbMessageType {
  return lookupType(name) as unknown as PbMessageType;
}
