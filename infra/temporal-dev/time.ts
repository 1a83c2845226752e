// Conversions between milliseconds and protobuf Timestamp/Duration plain objects.
import type { Msg } from './proto.ts';

export interface ProtoTime {
  seconds: number;
  nanos: number;
}

export function msToProto(ms: number): ProtoTime {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** Milliseconds of a Duration/Timestamp, or undefined when unset or zero (Temporal treats zero as unset). */
export function protoToMs(value: Msg | null | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Number(value.seconds ?? 0) * 1000 + Math.floor(Number(value.nanos ?? 0) / 1e6);
  return ms > 0 ? ms : undefined;
}
