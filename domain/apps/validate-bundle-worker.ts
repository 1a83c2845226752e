// Thread entry of the bundle validation pool (bundle-validation.ts): one bundle per message.
import { parentPort } from 'node:worker_threads';
import { type BundleInput, validateBundle } from '../../schemas/bundle/index.ts';

parentPort?.on('message', (input: BundleInput) => parentPort?.postMessage(validateBundle(input)));
