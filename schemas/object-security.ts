import { z } from 'zod';
import { MarkingId } from './markings.ts';
import { PropertyApiName } from './ontology.ts';

// Object and property security policies of an object type (issue 29, Deliver 5): a sub-resource of
// the type (`…/objectTypes/{type}/security`). Foundry's shapes where they exist: an object policy
// hides an object a principal fails, a property policy nulls its properties (Security policy test).

/** A user attribute's name, as in `User.attributes` (`svc:username`, `svc:organizations`, `svc:role:<cellId>`, …). */
const AttributeName = z.string().min(1).max(200);

export const SecurityCondition = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('marking'),
      markingId: MarkingId.meta({ description: 'The principal must hold a role on this marking (any role clears).' }),
    }),
    z.strictObject({
      type: z.literal('userAttribute'),
      property: PropertyApiName.meta({ description: 'A string property of the type.' }),
      attribute: AttributeName.meta({
        description: 'A user attribute: the property must equal one of its values (a principal without it fails).',
      }),
    }),
  ])
  .meta({ id: 'SecurityCondition' });
export type SecurityCondition = z.infer<typeof SecurityCondition>;

const Conditions = z.array(SecurityCondition).min(1).max(20);

export const ObjectSecurityPolicy = z
  .strictObject({
    objectPolicy: z
      .strictObject({ conditions: Conditions })
      .nullable()
      .default(null)
      .meta({ description: 'Every condition must hold for the object to exist for the principal; null: every object is shown.' }),
    propertyPolicies: z
      .array(
        z.strictObject({
          properties: z.array(PropertyApiName).min(1).max(200).meta({ description: 'Never the primary key.' }),
          conditions: Conditions,
        }),
      )
      .max(50)
      .default([])
      .meta({ description: 'Each: every condition must hold, or its properties read as null for the principal.' }),
  })
  .meta({ id: 'ObjectSecurityPolicy' });
export type ObjectSecurityPolicy = z.infer<typeof ObjectSecurityPolicy>;

export const ObjectTypeSecurity = z
  .object({
    objectType: z.string(),
    policy: ObjectSecurityPolicy,
    updatedAt: z.iso.datetime().nullable().meta({ description: 'null: no policy was ever set.' }),
  })
  .meta({ id: 'ObjectTypeSecurity' });
export type ObjectTypeSecurity = z.input<typeof ObjectTypeSecurity>;

/** User attributes as a test names them: untrusted, bounded (100 names of up to 100 values). */
const TestAttributes = z
  .record(AttributeName, z.array(z.string().max(1000)).max(100))
  .refine((a) => Object.keys(a).length <= 100, 'at most 100 attributes');

export const SecurityTestRequest = z
  .strictObject({
    userId: z.string().max(200).optional().meta({ description: 'Whose attributes and markings to judge by; default: the caller.' }),
    attributes: TestAttributes.optional().meta({ description: 'Replaces the user’s attributes (a what-if).' }),
    markingIds: z.array(MarkingId).max(200).optional().meta({ description: 'Replaces the user’s clearance (a what-if).' }),
    object: z
      .record(PropertyApiName, z.unknown())
      .refine((o) => Object.keys(o).length <= 500, 'at most 500 properties')
      .meta({ description: 'A sample object: property values by name (only the properties the policies compare are read).' }),
  })
  .meta({ id: 'SecurityTestRequest' });
export type SecurityTestRequest = z.infer<typeof SecurityTestRequest>;

export const ConditionOutcome = z
  .object({
    condition: SecurityCondition,
    passed: z.boolean(),
    reason: z.string(),
  })
  .meta({ id: 'SecurityConditionOutcome' });

export const SecurityTestResult = z
  .object({
    visible: z.boolean().meta({ description: 'Whether the object exists for the principal (its object policy).' }),
    object: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'What the principal would read: null when hidden; nulled properties left out.' }),
    nulledProperties: z.array(z.string()),
    objectPolicy: z.array(ConditionOutcome).meta({ description: 'Each object condition and why it passed or failed.' }),
    propertyPolicies: z.array(z.object({ properties: z.array(z.string()), passed: z.boolean(), conditions: z.array(ConditionOutcome) })),
  })
  .meta({ id: 'SecurityTestResult' });
export type SecurityTestResult = z.input<typeof SecurityTestResult>;
