// Action types over the SALES fixture (test/support/ontology.ts), for the action tests.

export const PAY_ORDER = {
  apiName: 'sales.payOrder',
  displayName: 'Pay order',
  parameters: {
    order: { dataType: { type: 'objectReference', objectType: 'sales.Order' } },
    note: { dataType: { type: 'string' }, required: false },
  },
  submissionCriteria: [
    { condition: { not: { parameter: 'order', property: 'paid', op: 'eq', value: true } }, failureMessage: 'The order is paid already.' },
  ],
  edits: [{ type: 'modifyObject', object: 'order', properties: { paid: { value: true }, note: { parameter: 'note' } } }],
};

export const ADD_CUSTOMER = {
  apiName: 'sales.addCustomer',
  parameters: {
    id: { dataType: { type: 'string' } },
    name: { dataType: { type: 'string' } },
    tier: { dataType: { type: 'integer' }, required: false },
  },
  submissionCriteria: [
    {
      condition: {
        any: [
          { parameter: 'tier', op: 'isNull', value: true },
          { parameter: 'tier', op: 'gte', value: 0 },
        ],
      },
    },
  ],
  edits: [
    {
      type: 'createObject',
      objectType: 'sales.Customer',
      properties: { id: { parameter: 'id' }, name: { parameter: 'name' }, tier: { parameter: 'tier' } },
    },
  ],
};

export const SET_NOTE = {
  apiName: 'sales.setNote',
  parameters: { order: { dataType: { type: 'objectReference', objectType: 'sales.Order' } }, note: { dataType: { type: 'string' } } },
  edits: [{ type: 'modifyObject', object: 'order', properties: { note: { parameter: 'note' } } }],
};

export const ASSIGN_ORDER = {
  apiName: 'sales.assignOrder',
  parameters: {
    order: { dataType: { type: 'objectReference', objectType: 'sales.Order' } },
    customer: { dataType: { type: 'objectReference', objectType: 'sales.Customer' } },
  },
  edits: [{ type: 'addLink', linkType: 'order-customer', source: { parameter: 'order' }, target: { parameter: 'customer' } }],
};

export const ACTIONS = { actionTypes: [PAY_ORDER, ADD_CUSTOMER, SET_NOTE, ASSIGN_ORDER] };
