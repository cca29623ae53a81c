const MAX_KEY_LENGTH = 4096;

/**
 * Checks an API key before it is stored or sent. Returns a message when it cannot be used (it would
 * break or be mangled in the Authorization header); never includes the key itself.
 */
export function validateApiKey(key: string): string | undefined {
  if (key === '') {
    return 'The API key is empty.';
  }
  if (/\s/.test(key)) {
    return 'The API key contains spaces or line breaks. Paste only the key itself.';
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) {
    return 'The API key contains control characters. Paste only the key itself.';
  }
  if (!/^[\u0021-\u007e]+$/.test(key)) {
    return 'The API key contains characters that cannot be sent in an HTTP header (only printable ASCII is allowed).';
  }
  if (key.length > MAX_KEY_LENGTH) {
    return `The API key is longer than ${MAX_KEY_LENGTH} characters; check that you pasted only the key.`;
  }
  return undefined;
}
