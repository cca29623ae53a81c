/**
 * The application id a command was invoked with: a string (from code or a keybinding's `args`), or
 * an Applications view row (inline actions pass the row).
 */
export function applicationIdFromArg(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.length > 0) {
    return arg;
  }
  if (typeof arg === 'object' && arg !== null) {
    const row = arg as { app?: { id?: unknown }; applicationId?: unknown };
    if (typeof row.applicationId === 'string') {
      return row.applicationId;
    }
    if (typeof row.app?.id === 'string') {
      return row.app.id;
    }
  }
  return undefined;
}
