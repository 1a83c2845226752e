// Thread entry of the image transformation pool (transform-media-item.ts): one item per message.
// sharp's own threads are held to one, so a job uses the one core its pool thread stands for.
import { parentPort } from 'node:worker_threads';
import sharp from 'sharp';
import { IMAGE_ENCODINGS, MEDIA_LIMITS } from '../../schemas/media.ts';
import type { ImageJob, ImageJobResult } from './transform-media-item.ts';

sharp.concurrency(1);
sharp.cache(false);

/** Operations apply in order: each step decodes what the previous one produced (sharp applies one rotation per pipeline). */
async function transform({ bytes, transformation }: ImageJob): Promise<ImageJobResult> {
  let image = sharp(bytes, { limitInputPixels: MEDIA_LIMITS.transformationInputPixels, failOn: 'error' }).autoOrient();
  for (const op of transformation.operations) {
    if (op.type === 'rotate') image = image.rotate(op.angle);
    else if (op.type === 'grayscale') image = image.grayscale();
    else image = image.resize({ width: op.width, height: op.height, fit: op.fit, withoutEnlargement: op.fit === 'inside' });
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    image = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  }
  // Encoders write sRGB unless told: a grayscale image (no later operation adds colour) keeps one channel.
  if (transformation.operations.some((op) => op.type === 'grayscale')) image = image.toColourspace('b-w');
  const { type, quality = 80 } = transformation.encoding;
  const encoded = type === 'png' ? image.png() : type === 'jpeg' ? image.jpeg({ quality }) : image.webp({ quality });
  return { ok: true, bytes: await encoded.toBuffer(), mimeType: IMAGE_ENCODINGS[type] };
}

parentPort?.on('message', (job: ImageJob) => {
  transform(job).then(
    (result) => parentPort?.postMessage(result),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      parentPort?.postMessage({ ok: false, tooManyPixels: /pixel limit/i.test(message), failure: message } satisfies ImageJobResult);
    },
  );
});
