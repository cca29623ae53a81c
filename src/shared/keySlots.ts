/**
 * Where an API key is kept in VS Code's SecretStorage: one slot per application and service base
 * URL (origin and path), so two environments on one origin (`https://api.example.com/staging` and
 * `…/prod`) keep separate keys, and a key is only ever sent to the base URL it was saved for.
 *
 * Keys saved by earlier versions sit in slots named by origin alone. Such a key moves, the first
 * time it is asked for, to the slot of the base URL that asked (the service in use then), and its
 * old slot is emptied: it never serves a second base URL.
 */

/** One stored key: an application on one service base URL. */
export interface KeyRef {
  /** The service's base URL (normalised by {@link keyBaseUrl} when the slot is named). */
  readonly baseUrl: string;
  readonly applicationId: string;
}

/** The part of SecretStorage that keys use. */
export interface SecretSlots {
  get(name: string): PromiseLike<string | undefined>;
  store(name: string, value: string): PromiseLike<void>;
  delete(name: string): PromiseLike<void>;
}

const SLOT_PREFIX = 'applicationQuery.apiKey.baseUrl:';
/** The origin-keyed slots of earlier versions. */
const LEGACY_PREFIX = 'applicationQuery.apiKey:';

/**
 * A base URL as keys are bound to it: its origin (scheme, host in lower case, port unless the
 * default) and its path without trailing slashes, so `https://A.example:443/x/` and
 * `https://a.example/x` are one service. Undefined for what is not an http(s) URL.
 */
export function keyBaseUrl(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The origin of a normalised base URL. */
function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** The SecretStorage slot of a key. JSON keeps the two parts apart whatever characters they hold. */
export function keySlot(ref: KeyRef): string {
  return SLOT_PREFIX + JSON.stringify([keyBaseUrl(ref.baseUrl) ?? ref.baseUrl, ref.applicationId]);
}

/** The slot an earlier version kept this application's key in for the base URL's origin. */
export function legacyKeySlot(ref: KeyRef): string {
  return LEGACY_PREFIX + JSON.stringify([originOf(ref.baseUrl), ref.applicationId]);
}

/** The key a slot name holds, if it is one of ours (either form; an old slot gives its origin as the base URL). */
export function parseKeySlot(name: string): KeyRef | undefined {
  const body = name.startsWith(SLOT_PREFIX) ? name.slice(SLOT_PREFIX.length) : name.startsWith(LEGACY_PREFIX) ? name.slice(LEGACY_PREFIX.length) : undefined;
  if (body === undefined) return undefined;
  try {
    const parts: unknown = JSON.parse(body);
    if (Array.isArray(parts) && parts.length === 2 && typeof parts[0] === 'string' && typeof parts[1] === 'string') {
      return { baseUrl: parts[0], applicationId: parts[1] };
    }
  } catch {
    // Not one of ours.
  }
  return undefined;
}

/**
 * The key stored for `ref`, moving an earlier version's origin-keyed key into `ref`'s slot first
 * (and emptying the old slot) when `ref` has none and `mayMove()` says so when the old slot is
 * read. Callers run one at a time per store, so two base URLs on one origin cannot both take the
 * same old key.
 */
export async function readKey(slots: SecretSlots, ref: KeyRef, mayMove: () => boolean = () => true): Promise<string | undefined> {
  const key = await slots.get(keySlot(ref));
  if (key !== undefined && key !== '') return key;
  const legacy = legacyKeySlot(ref);
  const old = await slots.get(legacy);
  if (old === undefined || old === '' || !mayMove()) return undefined;
  await slots.store(keySlot(ref), old);
  await slots.delete(legacy);
  return old;
}
