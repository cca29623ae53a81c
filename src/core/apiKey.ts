const MAX_KEY_LENGTH = 4096;
const MASK = '••••';

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

/**
 * Replaces every occurrence of each secret (and its URL-encoded form) with `••••`. Secrets shorter
 * than 4 characters are left alone: masking them would garble ordinary text and reveal little.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) {
      continue;
    }
    forms.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) {
      forms.add(encoded);
    }
  }
  if (forms.size === 0) {
    return text;
  }
  // Longest first, so a secret that contains another is masked whole.
  let result = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (result.includes(form)) {
      result = result.split(form).join(MASK);
    }
  }
  return result;
}
