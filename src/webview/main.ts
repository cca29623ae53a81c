/*
 * The webview bundle for every surface (`body[data-surface]` = `chat`, `panel` or `compare`).
 *
 * Test hooks (stable for e2e tests):
 *   [data-turn-id="…"][data-role="user"|"assistant"]   one per turn; answers carry
 *       [data-status="streaming"|"done"|"stopped"|"error"|"interrupted"] and aria-busy (true until the
 *       answer has ended and all of it is rendered)
 *   .aq-answer                                          the rendered markdown of an answer
 *   .aq-code  [data-lang]  .aq-code-actions  button[data-action="copy"|"insert"|"open"]   code blocks
 *   [data-role="http-status"]  [data-role="error"] (with [data-role="error-status"])  [data-role="stopped-note"]
 *   button[data-action=…]: "copy-message" (chat, per answer), "retry", "set-api-key", "send", "stop",
 *       "clear", "export", "attach-selection", "attach-file", "remove-attachment", "copy-answer" (panel)
 *   select#aq-application (label "Application")   textarea[aria-label="Ask the application"]
 *   [data-role="attachments"] > .aq-chip[data-attachment-id]   [data-role="welcome"]
 *   [data-role="announcer"] (the polite live region)   panel: [data-role="title"], [data-role="bytes"],
 *       body[data-status] (status of the latest answer)
 *   compare: [data-role="columns"] > section[data-role="column"][data-turn-id][data-status] (aria-labelledby its
 *       [data-role="column-title"]), with [data-role="environment"|"http-status"|"first-byte"|"total"|"length"]
 *       and button[data-action="stop"|"copy-answer"|"diff"]; [data-role="question"]; Stop All is the
 *       header's button[data-action="stop"]
 */
import { assertNever, type ChatToHost, type CompareToHost, type HostToPage, isHostMessage, type PanelToHost, type ToPage, type ViewKind } from '../shared/protocol';
import { ChatView } from './chat';
import { connectHost, type Host } from './host';
import { PanelView } from './panel';
import { CompareView } from './compare';
import type { SurfaceView } from './surface';

/** Hands a message every surface takes to the view. */
function dispatch(view: SurfaceView, message: HostToPage): void {
  switch (message.type) {
    case 'state':
      view.setState(message.state);
      break;
    case 'turnStart':
      view.startTurn(message.turn);
      break;
    case 'append':
      // The host is trusted, but the page takes a count only if it is one.
      view.append(message.turnId, message.text, typeof message.queued === 'number' && message.queued > 0 ? message.queued : 0);
      break;
    case 'status':
      view.setHttpStatus(message.turnId, message.httpStatus);
      break;
    case 'turnEnd':
      view.endTurn(message);
      break;
    default:
      assertNever(message);
  }
}

/** Hands a message to the Chat view: its composer's own, or one every surface takes. */
function dispatchChat(view: ChatView, message: ToPage<'chat'>): void {
  switch (message.type) {
    case 'applications':
      view.setApplications(message.applications, message.currentApplicationId);
      break;
    case 'attachments':
      view.setAttachments(message.attachments);
      break;
    default:
      dispatch(view, message);
  }
}

/** Takes from the host what `surface` takes, and hands it to the view; anything else is ignored. */
function listen<S extends ViewKind>(surface: S, handle: (message: ToPage<S>) => void): void {
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (isHostMessage(surface, event.data)) handle(event.data);
  });
}

/** Builds the page's surface and starts taking its messages. */
function openSurface(root: HTMLElement, surface: string | undefined): Host {
  if (surface === 'panel') {
    const host = connectHost<PanelToHost>();
    const view = new PanelView(root, host);
    listen('panel', (message) => dispatch(view, message));
    return host;
  }
  if (surface === 'compare') {
    const host = connectHost<CompareToHost>();
    const view = new CompareView(root, host);
    listen('compare', (message) => dispatch(view, message));
    return host;
  }
  const host = connectHost<ChatToHost>();
  const view = new ChatView(root, host);
  listen('chat', (message) => dispatchChat(view, message));
  return host;
}

function start(): void {
  const root = document.getElementById('root');
  if (root === null) {
    return;
  }
  const host = openSurface(root, document.body.dataset.surface);
  host.post({ type: 'ready' });
}

start();
