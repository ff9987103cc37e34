// Typed refusals for vendor operations. Each carries the kernel's stable `code`, a `kind` that
// says what went wrong in pack terms, and the vendor's own error code (Stripe's
// `payment_intent_unexpected_state`, Slack's `channel_not_found`, …) so callers can match either.
import { TwinError, type TwinErrorCode } from '../../src/index.js';

export type VendorErrorKind = 'invalid_input' | 'not_found' | 'invalid_state' | 'conflict';

// The kernel has no NOT_FOUND / INVALID_STATE / CONFLICT codes yet; until it does, every kind
// maps to INVALID_ARGUMENT and `kind` carries the distinction. One table to change later.
const KERNEL_CODE: Readonly<Record<VendorErrorKind, TwinErrorCode>> = {
  invalid_input: 'INVALID_ARGUMENT',
  not_found: 'INVALID_ARGUMENT',
  invalid_state: 'INVALID_ARGUMENT',
  conflict: 'INVALID_ARGUMENT',
};

export class VendorError extends TwinError {
  readonly kind: VendorErrorKind;
  readonly vendor: string;
  readonly vendorCode: string;

  constructor(
    vendor: string,
    kind: VendorErrorKind,
    vendorCode: string,
    message: string,
    options: { path?: string; details?: Record<string, unknown> } = {},
  ) {
    super(KERNEL_CODE[kind], `${vendor}: ${message}`, {
      ...options,
      details: { kind, vendorCode, ...(options.details ?? {}) },
    });
    this.name = 'VendorError';
    this.kind = kind;
    this.vendor = vendor;
    this.vendorCode = vendorCode;
  }
}

export function isVendorError(value: unknown, kind?: VendorErrorKind): value is VendorError {
  return value instanceof VendorError && (kind === undefined || value.kind === kind);
}
