// GitHub's refusals: 404 Not Found and 422 Validation Failed, as typed errors; a `custom` one
// carries GitHub's own message and names no field (the surface answers it as GitHub does).
import { VendorError } from '../kit/errors.js';

export function notFound(what: string, path: string): VendorError {
  return new VendorError('github', 'not_found', 'not_found', `Not Found: ${what}`, { path });
}

export function validationFailed(message: string, path: string): VendorError {
  return new VendorError(
    'github',
    'invalid_input',
    'validation_failed',
    `Validation Failed: ${message}`,
    { path },
  );
}

/** GitHub's `custom` 422: a message of its own about `resource` (e.g. a hook that already exists). */
export function customRefusal(resource: string, message: string): VendorError {
  return new VendorError('github', 'conflict', 'custom', `Validation Failed: ${message}`, {
    details: { resource },
  });
}

/** GitHub's `custom` 422 about one field, in GitHub's words (e.g. a body over GitHub's limit). */
export function customFieldRefusal(field: string, message: string): VendorError {
  return new VendorError('github', 'invalid_input', 'custom', `Validation Failed: ${message}`, {
    path: field,
  });
}
