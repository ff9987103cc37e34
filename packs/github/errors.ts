// GitHub's refusals: 404 Not Found and 422 Validation Failed, as typed errors.
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
