// The error code of an error response, noted by toErrorResponse beside the Response so the
// edge reads it without parsing the body.
const codes = new WeakMap<Response, string>();

export function noteErrorCode(response: Response, code: string): Response {
  codes.set(response, code);
  return response;
}

export function errorCodeOf(response: Response): string | undefined {
  return codes.get(response);
}
