// Lookups the API needs beyond the pack's own: customers by email (list and search filters) and a
// delivery record by its event id (events.retrieve), so neither scans.
import type { IndexDeclaration } from '../../../src/index.js';

export const BY_EMAIL = 'surface_email';
export const BY_EVENT = 'surface_event';

export const SURFACE_INDEXES: readonly IndexDeclaration[] = [
  { type: 'customer', name: BY_EMAIL, field: 'email' },
  { type: 'webhook_delivery', name: BY_EVENT, field: 'eventId' },
];
