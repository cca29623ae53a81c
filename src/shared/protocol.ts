/**
 * The protocol between the extension host and the webviews (the Chat view, the answer panel and the
 * Compare panel): what every surface that shows answers exchanges ({@link HostToPage},
 * {@link PageToHost}), and per surface a union per direction over it. The host validates every
 * incoming message against its surface's union with {@link parseWebviewMessage} and drops anything else.
 */
import type { EndKind, Remedy } from './outcome';

/** Which webview surface a bundle instance is driving. */
export type ViewKind = 'chat' | 'panel' | 'compare';

/** Where an answer is: `streaming` while it arrives, then how it ended (the core's one vocabulary). */
export type TurnStatus = 'streaming' | EndKind;

/** A piece of context attached to a question (shown as a removable chip). */
export interface AttachmentInfo {
  readonly id: string;
  /** What the chip shows, e.g. `selection: app.ts:10-24` or `file: app.ts`. */
  readonly label: string;
  readonly kind: 'selection' | 'file';
}

/** An application as the webview shows it. */
export interface ApplicationInfo {
  readonly id: string;
  readonly label: string;
  readonly hasKey: boolean;
}

/** One entry of the transcript: a question or an answer. */
export interface Turn {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly applicationId: string;
  /** The text so far: the question, or the answer as it has arrived. */
  text: string;
  status: TurnStatus;
  /** Context labels sent with a question. */
  readonly attachments?: readonly string[];
  /** The HTTP status of the answer's response, once known. */
  httpStatus?: number;
  /** A plain-language message for an error or interruption. */
  message?: string;
  /** Whether Retry is offered for a failed answer. */
  retryable?: boolean;
  /** What else the user can do about a failed answer (the outcome's remedies). */
  remedies?: readonly Remedy[];
  readonly startedAt: number;
  /** The environment the answer came from, when it names one (Compare columns). */
  readonly environment?: string;
  /** From sending the request to the first body byte, and the whole exchange, once the answer ended. */
  firstByteMs?: number;
  durationMs?: number;
}

/** The whole state of a surface, sent after `ready` and whenever the view is shown again. */
export interface SurfaceState {
  readonly surface: ViewKind;
  /** Panel title / chat header. */
  readonly title: string;
  readonly applications: readonly ApplicationInfo[];
  readonly currentApplicationId: string | undefined;
  readonly turns: readonly Turn[];
  readonly attachments: readonly AttachmentInfo[];
}

/** Messages from the extension host that every surface showing answers takes. */
export type HostToPage =
  /** Replace everything shown with this state. */
  | { readonly type: 'state'; readonly state: SurfaceState }
  /** A new turn (question or answer) starts. */
  | { readonly type: 'turnStart'; readonly turn: Turn }
  /**
   * Text arrived for a streaming answer (batched: at most one message per frame). `queued`: how much
   * more of this answer the host already holds and sends after this message (absent when none), so
   * that a page far behind folds what floods in instead of rendering text about to be folded.
   */
  | { readonly type: 'append'; readonly turnId: string; readonly text: string; readonly queued?: number }
  /** The HTTP status of an answer became known. */
  | { readonly type: 'status'; readonly turnId: string; readonly httpStatus: number }
  /** An answer ended. */
  | {
      readonly type: 'turnEnd';
      readonly turnId: string;
      readonly status: Exclude<TurnStatus, 'streaming'>;
      readonly httpStatus?: number;
      readonly message?: string;
      readonly retryable?: boolean;
      /** What else the user can do about it: the outcome's remedies, from the one classification of a failure. */
      readonly remedies?: readonly Remedy[];
      readonly firstByteMs?: number;
      readonly durationMs?: number;
    };

/** Messages from the extension host to the answer panel. */
export type HostToPanel = HostToPage;

/** Messages from the extension host to the Compare panel. */
export type HostToCompare = HostToPage;

/** Messages from the extension host to the Chat view: the answers', and its composer's. */
export type HostToChat =
  | HostToPage
  /** The application list or the current application changed. */
  | { readonly type: 'applications'; readonly applications: readonly ApplicationInfo[]; readonly currentApplicationId: string | undefined }
  /** The pending attachments changed. */
  | { readonly type: 'attachments'; readonly attachments: readonly AttachmentInfo[] };

/** A message from the extension host to any surface: what the host's pacing of messages (outgoing.ts) carries. */
export type HostToWebview = ToPage<ViewKind>;

/** Messages that every surface showing answers sends to the extension host. */
export type PageToHost =
  /** The webview has loaded and can receive messages. Always the first message. */
  | { readonly type: 'ready' }
  /** Stop a streaming answer, or every answer of this surface when `turnId` is absent. */
  | { readonly type: 'stop'; readonly turnId?: string }
  /** Retry the question behind a failed answer. */
  | { readonly type: 'retry'; readonly turnId: string }
  /** Copy a code block's text to the clipboard. */
  | { readonly type: 'copy'; readonly text: string }
  /** Copy a whole answer: the host copies its own copy of the text, so nothing large crosses over. */
  | { readonly type: 'copyAnswer'; readonly turnId: string }
  /** Open a whole answer as a Markdown document (a long answer's fold offers it), from the host's copy. */
  | { readonly type: 'openAnswer'; readonly turnId: string }
  /** Insert a code block at the active editor's cursor. */
  | { readonly type: 'insertCode'; readonly code: string }
  /** Open a code block in a new untitled editor. */
  | { readonly type: 'openCode'; readonly code: string; readonly language?: string }
  /** Open an http(s) link from an answer in the user's browser. */
  | { readonly type: 'openLink'; readonly href: string }
  /** Run Set API Key… for the current application, or for the application (and service) of this answer. */
  | { readonly type: 'setApiKey'; readonly turnId?: string };

/** Messages from the answer panel to the extension host. */
export type PanelToHost =
  | PageToHost
  /** Open the answer as a Markdown document. */
  | { readonly type: 'exportMarkdown' };

/** Messages from the Chat view to the extension host: the answers', and its composer's. */
export type ChatToHost =
  | PageToHost
  /** Send a question. */
  | { readonly type: 'send'; readonly text: string }
  /** Choose the current application. */
  | { readonly type: 'selectApplication'; readonly applicationId: string }
  /** Attach the editor's selection or current file as context. */
  | { readonly type: 'attach'; readonly kind: 'selection' | 'file' }
  /** Remove a pending attachment. */
  | { readonly type: 'removeAttachment'; readonly id: string }
  /** Clear the conversation. */
  | { readonly type: 'clear' }
  /** Export the conversation as a Markdown document. */
  | { readonly type: 'exportMarkdown' };

/** Messages from the Compare panel to the extension host. */
export type CompareToHost =
  | PageToHost
  /** Open this answer and another one in VS Code's diff editor. */
  | { readonly type: 'diff'; readonly turnId: string };

/** Each surface's two unions, by the surface's name. */
export interface SurfaceProtocol {
  readonly chat: { readonly toHost: ChatToHost; readonly toPage: HostToChat };
  readonly panel: { readonly toHost: PanelToHost; readonly toPage: HostToPanel };
  readonly compare: { readonly toHost: CompareToHost; readonly toPage: HostToCompare };
}

/** What surface `S` sends to the extension host. */
export type ToHost<S extends ViewKind> = SurfaceProtocol[S]['toHost'];

/** What the extension host sends to surface `S`. */
export type ToPage<S extends ViewKind> = SurfaceProtocol[S]['toPage'];

/** Every message type some surface sends. */
type AnyToHost = ToHost<ViewKind>;

/** A set of message types, checked against a union by the compiler (every type listed, no other). */
type TypeSet<M extends { readonly type: string }> = Readonly<Record<M['type'], true>>;

const PAGE_TO_HOST = {
  ready: true,
  stop: true,
  retry: true,
  copy: true,
  copyAnswer: true,
  openAnswer: true,
  insertCode: true,
  openCode: true,
  openLink: true,
  setApiKey: true,
} as const satisfies TypeSet<PageToHost>;

/** The message types each surface may send; the host refuses any other, also one another surface sends. */
const TO_HOST_TYPES: { readonly [S in ViewKind]: TypeSet<ToHost<S>> } = {
  chat: { ...PAGE_TO_HOST, send: true, selectApplication: true, attach: true, removeAttachment: true, clear: true, exportMarkdown: true } satisfies TypeSet<ChatToHost>,
  panel: { ...PAGE_TO_HOST, exportMarkdown: true } satisfies TypeSet<PanelToHost>,
  compare: { ...PAGE_TO_HOST, diff: true } satisfies TypeSet<CompareToHost>,
};

const HOST_TO_PAGE = { state: true, turnStart: true, append: true, status: true, turnEnd: true } as const satisfies TypeSet<HostToPage>;

/** The message types each surface takes from the host. */
const TO_PAGE_TYPES: { readonly [S in ViewKind]: TypeSet<ToPage<S>> } = {
  chat: { ...HOST_TO_PAGE, applications: true, attachments: true } satisfies TypeSet<HostToChat>,
  panel: HOST_TO_PAGE,
  compare: HOST_TO_PAGE,
};

/**
 * Whether a message the page received is one its surface takes from the host (the page's own check:
 * the host is trusted, but a page gets other windows' messages too).
 */
export function isHostMessage<S extends ViewKind>(surface: S, data: unknown): data is ToPage<S> {
  return typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string' && Object.hasOwn(TO_PAGE_TYPES[surface], data.type);
}

/** The largest text a webview may send in one message (a generous question or code block). */
export const MAX_WEBVIEW_TEXT = 1_000_000;

function str(value: unknown, max = MAX_WEBVIEW_TEXT): value is string {
  return typeof value === 'string' && value.length <= max;
}

/** Checks the fields of a message of a known type; `undefined` when one is missing or malformed. */
function parseFields(m: Record<string, unknown> & { readonly type: AnyToHost['type'] }): AnyToHost | undefined {
  switch (m.type) {
    case 'ready':
    case 'clear':
    case 'exportMarkdown':
      return { type: m.type };
    case 'setApiKey':
      if (m.turnId === undefined) return { type: 'setApiKey' };
      return str(m.turnId, 200) ? { type: 'setApiKey', turnId: m.turnId } : undefined;
    case 'diff':
      return str(m.turnId, 200) ? { type: 'diff', turnId: m.turnId } : undefined;
    case 'send':
      return str(m.text) ? { type: 'send', text: m.text } : undefined;
    case 'stop':
      if (m.turnId === undefined) {
        return { type: 'stop' };
      }
      return str(m.turnId, 200) ? { type: 'stop', turnId: m.turnId } : undefined;
    case 'retry':
      return str(m.turnId, 200) ? { type: 'retry', turnId: m.turnId } : undefined;
    case 'copyAnswer':
    case 'openAnswer':
      return str(m.turnId, 200) ? { type: m.type, turnId: m.turnId } : undefined;
    case 'selectApplication':
      return str(m.applicationId, 500) ? { type: 'selectApplication', applicationId: m.applicationId } : undefined;
    case 'attach':
      return m.kind === 'selection' || m.kind === 'file' ? { type: 'attach', kind: m.kind } : undefined;
    case 'removeAttachment':
      return str(m.id, 200) ? { type: 'removeAttachment', id: m.id } : undefined;
    case 'copy':
      return str(m.text) ? { type: 'copy', text: m.text } : undefined;
    case 'insertCode':
      return str(m.code) ? { type: 'insertCode', code: m.code } : undefined;
    case 'openCode':
      if (!str(m.code) || (m.language !== undefined && !str(m.language, 100))) {
        return undefined;
      }
      return { type: 'openCode', code: m.code, language: m.language };
    case 'openLink':
      return str(m.href, 8192) ? { type: 'openLink', href: m.href } : undefined;
    default:
      return assertNever(m.type);
  }
}

/** The untrusted message as a record whose type `surface` sends, or `undefined`. */
function ofSurface(surface: ViewKind, raw: unknown): (Record<string, unknown> & { readonly type: AnyToHost['type'] }) | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  return typeof m.type === 'string' && Object.hasOwn(TO_HOST_TYPES[surface], m.type) ? (m as Record<string, unknown> & { readonly type: AnyToHost['type'] }) : undefined;
}

/**
 * Checks an untrusted message from the webview of `surface` against that surface's protocol.
 * Returns the typed message, or `undefined` for anything unknown, malformed or sent by another
 * surface (which the host drops).
 */
export function parseWebviewMessage<S extends ViewKind>(surface: S, raw: unknown): ToHost<S> | undefined {
  const m = ofSurface(surface, raw);
  // The type is one `surface` sends (checked above), so the parsed message is of its union.
  return m === undefined ? undefined : parseFields(m);
}

/**
 * For a message of `surface` that the protocol drops only because a text in it is longer than
 * {@link MAX_WEBVIEW_TEXT}: its type and the text's length, so the host can tell the user instead of failing silently.
 */
export function oversizedMessage(surface: ViewKind, raw: unknown): { type: string; length: number } | undefined {
  const m = ofSurface(surface, raw);
  if (m === undefined) return undefined;
  const field = m.type === 'send' || m.type === 'copy' ? m.text : m.type === 'insertCode' || m.type === 'openCode' ? m.code : undefined;
  return typeof field === 'string' && field.length > MAX_WEBVIEW_TEXT ? { type: m.type, length: field.length } : undefined;
}

/** Compile-time exhaustiveness check for switches over the unions above. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected message: ${JSON.stringify(value)}`);
}
