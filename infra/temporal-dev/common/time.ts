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

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** Milliseconds of a Go-style duration as Temporal accepts them ("1h30m", "90s", "2d"); undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/y;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  return pos === 0 ? undefined : total;
}
