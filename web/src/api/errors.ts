// ApiError is every failed call of the REST client: an HTTP status, the catalogue code
// of spec section 8 (ERR_…), the server's message and, for validation, per-field texts.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: Record<string, string> | undefined;

  constructor(status: number, code?: string, message?: string, fields?: Record<string, string>) {
    super(message || code || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
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
