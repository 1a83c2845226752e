import { z } from 'zod';
import { readObjectMedia, readObjectMediaThumbnail } from '../../domain/media/index.ts';
import { MEDIA_LIMITS, ObjectMediaThumbnailQuery, TRANSFORMABLE_IMAGE_TYPES } from '../../schemas/media.ts';
import { ObjectPropertyParams } from '../../schemas/ontology.ts';
import { defineRoute } from '../http/route.ts';
import { contentAnswer, contentOf, OBJECT_READ_ERRORS } from './content.ts';

// A media property's item read through the object that holds it (Foundry's getMediaContent, and a
// thumbnail of ours): whoever reads the object reads its media, an app's visitor included, with no
// role on the property's media set.

const OBJECT_MEDIA = '/api/v1/ontologies/{ontology}/objects/{objectType}/{primaryKey}/media/{property}';
const ERRORS = [...OBJECT_READ_ERRORS, 'media_item_not_found', 'media_set_not_found'] as const;
const READ_AS_THE_OBJECT =
  'Read as the object is (the caller’s data access, markings, object security: an object the caller cannot read is object_not_found); ' +
  'an item of the property’s own media set needs nothing more, an item of another set a role on that set. A property holding no ' +
  'media: media_item_not_found.';
const CONTENT =
  'Answered as media content is: one range 206, past the end 416, a strong ETag (If-None-Match: 304), Content-Disposition, ' +
  'X-Content-Type-Options: nosniff and a sandbox Content-Security-Policy.';

export const readObjectMediaContentRoute = defineRoute({
  method: 'get',
  path: `${OBJECT_MEDIA}/content`,
  operationId: 'readObjectMediaContent',
  summary: 'The bytes of the media item an object’s media property references',
  description: `${READ_AS_THE_OBJECT} ${CONTENT}`,
  tags: ['media'],
  auth: 'credential',
  params: ObjectPropertyParams,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The bytes, as their Content-Type.', schema: z.instanceof(Buffer) },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params, ctx }) => contentAnswer(await readObjectMedia(deps, principal, params), ctx),
});

export const readObjectMediaThumbnailRoute = defineRoute({
  method: 'get',
  path: `${OBJECT_MEDIA}/thumbnail`,
  operationId: 'readObjectMediaThumbnail',
  summary: 'A thumbnail of the image an object’s media property references: scaled to fit the box, never enlarged',
  description:
    `${READ_AS_THE_OBJECT} Made once per content and box, as the transformation \`resize\` (fit inside) with the encoding \`format\` ` +
    `(jpeg by default), and kept: the next request reads it. Images only (${TRANSFORMABLE_IMAGE_TYPES.join(', ')}; others ` +
    `transformation_unavailable); at most ${MEDIA_LIMITS.transformationInputBytes} bytes and ${MEDIA_LIMITS.transformationInputPixels} ` +
    `pixels in (transformation_input_too_large); an unreadable image transformed_media_item_not_found. ${CONTENT}`,
  tags: ['media'],
  auth: 'credential',
  params: ObjectPropertyParams,
  query: ObjectMediaThumbnailQuery,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The thumbnail’s bytes, as their Content-Type.', schema: z.instanceof(Buffer) },
  errors: [
    ...ERRORS,
    'invalid_payload',
    'transformation_unavailable',
    'transformation_input_too_large',
    'transformed_media_item_not_found',
  ],
  handler: async ({ deps, principal, params, query, ctx }) =>
    contentAnswer(contentOf(await readObjectMediaThumbnail(deps, principal, params, query)), ctx),
});

export const objectMediaRoutes = [readObjectMediaContentRoute, readObjectMediaThumbnailRoute];
