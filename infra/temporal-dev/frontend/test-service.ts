// temporal.api.testservice.v1.TestService: time-skipping controls over the virtual clock.

import { msToProto, protoToMs } from '../common/time.ts';
import type { ServerState } from '../namespace/registry.ts';
import type { Handler } from './grpc-server.ts';

export function testServiceHandlers(server: ServerState): Record<string, Handler> {
  const clock = server.clock;
  return {
    LockTimeSkipping: () => {
      clock.lock();
      return {};
    },
    UnlockTimeSkipping: () => {
      clock.unlock();
      return {};
    },
    Sleep: async (req) => {
      await clock.waitUntil(clock.now() + (protoToMs(req.duration) ?? 0));
      return {};
    },
    SleepUntil: async (req) => {
      await clock.waitUntil(protoToMs(req.timestamp) ?? 0);
      return {};
    },
    UnlockTimeSkippingWithSleep: async (req) => {
      await clock.sleepUnlocked(protoToMs(req.duration) ?? 0);
      return {};
    },
    GetCurrentTime: () => ({ time: msToProto(clock.now()) }),
  };
}
