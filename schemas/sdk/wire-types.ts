// TypeScript declarations of the SDK's wire shapes, generated from the same zod schemas the
// service validates with (zod → JSON Schema → TypeScript), so the SDK's types cannot drift from
// the server. Covers the JSON Schema the SDK's shapes use: objects, arrays, records, enums,
// constants, unions and nullables.
import { z } from 'zod';
import { LogEventInput, RecordEventsResult } from '../app-log.ts';
import { Attachment } from '../attachments.ts';
import { CreateProposalInput, OverlayView, ProposalView } from '../evolve.ts';
import { ImageTransformation, MediaItemView, TransformationJobView } from '../media.ts';
import { MediaReference } from '../ontology.ts';
import { AuthMe } from '../sharing.ts';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
};

const PRIMITIVES: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

function typeOf(schema: JsonSchema, indent: string, defs: Record<string, JsonSchema>): string {
  // Named schemas (zod `.meta({ id })`) come as references to `$defs`: inlined.
  if (schema.$ref) return typeOf(defs[schema.$ref.replace('#/$defs/', '')] ?? {}, indent, defs);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => typeOf(s, indent, defs)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((t) => typeOf({ ...schema, type: t }, indent, defs)).join(' | ');
  switch (schema.type) {
    case 'array':
      return `Array<${schema.items ? typeOf(schema.items, indent, defs) : 'unknown'}>`;
    case 'object': {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0) {
        const values = typeof schema.additionalProperties === 'object' ? typeOf(schema.additionalProperties, indent, defs) : 'unknown';
        return `Record<string, ${values}>`;
      }
      const inner = `${indent}  `;
      const lines = props.map(([name, prop]) => {
        const doc = prop.description ? `${inner}/** ${prop.description.replaceAll('*/', '* /')} */\n` : '';
        const optional = schema.required?.includes(name) ? '' : '?';
        return `${doc}${inner}${JSON.stringify(name)}${optional}: ${typeOf(prop, inner, defs)};`;
      });
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      return schema.type ? (PRIMITIVES[schema.type] ?? 'unknown') : 'unknown';
  }
}

/** `export type Name = …;` for one zod schema (`io`: the shape sent, or the shape answered). */
export function declareType(name: string, schema: z.ZodType, io: 'input' | 'output'): string {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return `export type ${name} = ${typeOf(json, '', json.$defs ?? {})};`;
}

/** The wire shapes of SDK v1, as served in semantic.d.ts. */
export function sdkWireTypes(): string {
  return [
    '// Generated from the service’s zod schemas.',
    declareType('AuthMe', AuthMe, 'output'),
    declareType('LogEvent', LogEventInput, 'input'),
    declareType('RecordEventsResult', RecordEventsResult, 'output'),
    declareType('EvolveOverlay', OverlayView, 'output'),
    declareType('EvolveProposalInput', CreateProposalInput.omit({ slug: true }), 'input'),
    declareType('EvolveProposal', ProposalView, 'output'),
    declareType('MediaItem', MediaItemView, 'output'),
    declareType('ImageTransformation', ImageTransformation, 'input'),
    declareType('MediaTransformationJob', TransformationJobView, 'output'),
    declareType('MediaReference', MediaReference, 'output'),
    declareType('Attachment', Attachment, 'output'),
  ].join('\n\n');
}
