// ApiError is every failed call of the REST client: an HTTP status, the catalogue code
// of spec section 8 (ERR_…), the server's message and, for validation, per-field texts.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: Record<string, string> | undefined;
  // Seconds to wait before trying again (a 429's Retry-After), when the server said.
  readonly retryAfter: number | undefined;

  constructor(status: number, code?: string, message?: string, fields?: Record<string, string>, retryAfter?: number) {
    super(message || code || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.retryAfter = retryAfter;
  }
}

// NetworkError is a call that never got an HTTP answer.
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'NetworkError';
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
