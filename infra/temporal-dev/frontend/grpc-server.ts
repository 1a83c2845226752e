// Serves protobufjs-described services with @grpc/grpc-js. Every method of a service is
// registered so that unsupported ones answer UNIMPLEMENTED naming the method.
import * as grpc from '@grpc/grpc-js';
import { invalidArgument, ServiceError, unimplemented } from '../common/errors.ts';
import { decodeMessage, encodeMessage, lookupService, type Msg } from '../common/proto.ts';

// Marks a request that failed to decode, so the handler can answer INVALID_ARGUMENT.
const MALFORMED = '__malformed';

export interface CallContext {
  /** Aborted when the caller cancels or disconnects; long polls must stop then. */
  signal: AbortSignal;
}

export type Handler = (request: Msg, ctx: CallContext) => Msg | Promise<Msg>;

export function addService(
  server: grpc.Server,
  serviceName: string,
  handlers: Record<string, Handler>,
  onError: (method: string, err: unknown) => void,
): void {
  const service = lookupService(serviceName);
  const definition: Record<string, grpc.MethodDefinition<Msg, Msg>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of Object.values(service.methods)) {
    method.resolve();
    const reqType = method.resolvedRequestType;
    const resType = method.resolvedResponseType;
    definition[method.name] = {
      path: `/${serviceName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (m: Msg) => encodeMessage(reqType, m),
      // Decoding failures surface as INVALID_ARGUMENT in the handler below rather than INTERNAL.
      requestDeserialize: (b: Buffer) => {
        try {
          return decodeMessage(reqType, b);
        } catch (err) {
          return { [MALFORMED]: String(err) };
        }
      },
      responseSerialize: (m: Msg) => encodeMessage(resType, m),
      responseDeserialize: (b: Buffer) => decodeMessage(resType, b),
    };
    const handler = handlers[method.name];
    implementation[method.name] = (call: grpc.ServerUnaryCall<Msg, Msg>, callback: grpc.sendUnaryData<Msg>) => {
      const controller = new AbortController();
      call.on('cancelled', () => controller.abort());
      const run = async (): Promise<Msg> => {
        if (!handler) throw unimplemented(`method ${method.name} is not implemented by temporal-dev`);
        const malformed = call.request[MALFORMED];
        if (malformed) throw invalidArgument(`malformed ${method.name} request: ${malformed}`);
        return handler(call.request, { signal: controller.signal });
      };
      run().then(
        (res) => callback(null, res),
        (err: unknown) => {
          if (err instanceof ServiceError) {
            const metadata = new grpc.Metadata();
            const details = err.statusDetailsBin();
            if (details) metadata.set('grpc-status-details-bin', details);
            callback({ code: err.code, details: err.message, metadata });
          } else {
            onError(method.name, err);
            callback({ code: grpc.status.INTERNAL, details: err instanceof Error ? err.message : String(err) });
          }
        },
      );
    };
  }
  server.addService(definition, implementation);
}
