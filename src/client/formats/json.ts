// Reading parsed JSON values: what every format family's reader shares.

/** The value at a dotted path (`choices.0.delta.content`); array steps must be indices. */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(key)) {
        return undefined;
      }
      current = current[Number(key)];
    } else if (isRecord(current)) {
      current = Object.prototype.hasOwnProperty.call(current, key) ? current[key] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

/** Whether `text` is one whole JSON value. */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a string. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
