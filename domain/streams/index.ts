// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { bindStream, unbindStream } from './bind-stream.ts';
export { createStream } from './create-stream.ts';
export { deleteStream } from './delete-stream.ts';
export { listRecords } from './list-records.ts';
export { getStream, listStreams } from './list-streams.ts';
export { pushRecords } from './push-records.ts';
