// Thread entry of the bundle validation pool (bundle-validation.ts): one bundle per message.
import { parentPort } from 'node:worker_threads';
import { validateBundle } from '../../schemas/bundle/index.ts';
import type { ValidationRequest } from './bundle-validation.ts';

parentPort?.on('message', ({ hosting, ...bundle }: ValidationRequest) => parentPort?.postMessage(validateBundle(bundle, hosting)));
