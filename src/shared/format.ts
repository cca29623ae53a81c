const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) {
    return `${Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0} B`;
  }
  let value = n;
  let unit = -1;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // Rounding 1023.96 KiB to one decimal would print "1024.0 KiB"; move up a unit instead.
  if (value.toFixed(1) === '1024.0' && unit < UNITS.length - 1) {
    value = 1;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${UNITS[unit]}`;
}

/** A duration for people: `850 ms`, `2.4 s`, `1 min 5 s`, `2 h 3 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    return '0 ms';
  }
  if (Math.round(ms) < 1000) {
    return `${Math.round(ms)} ms`;
  }
  const tenths = Math.round(ms / 100);
  if (tenths < 600) {
    return `${(tenths / 10).toFixed(1)} s`;
  }
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) {
    const min = Math.floor(seconds / 60);
    const sec = seconds % 60;
    return sec === 0 ? `${min} min` : `${min} min ${sec} s`;
  }
  const minutes = Math.round(seconds / 60);
  const h = Math.floor(minutes / 60);
  const min = minutes % 60;
  return min === 0 ? `${h} h` : `${h} h ${min} min`;
}

/**
 * UTF-8 bytes of a text with no Node: a surrogate half counts 2, so a pair counts 4 whether it
 * arrives whole or split across two pieces (a lone half, which UTF-8 cannot hold, also counts 2).
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdfff ? 2 : 3;
  }
  return bytes;
}
