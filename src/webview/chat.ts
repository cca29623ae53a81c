import { MAX_WEBVIEW_TEXT, type ApplicationInfo, type AttachmentInfo, type ChatToHost, type SurfaceState, type Turn } from '../shared/protocol';
import { button, h, icon, retarget } from './dom';
import type { Host } from './host';
import { attachContentHandlers } from './render';
import type { SurfaceView } from './surface';
import { Announcer, AutoScroller, Transcript, type TurnEnd } from './transcript';

/** The sidebar Chat view: application picker, transcript, composer. */
export class ChatView implements SurfaceView {
  private applications: readonly ApplicationInfo[] = [];
  private currentApplicationId: string | undefined;
  private readonly select: HTMLSelectElement;
  private readonly transcript: Transcript;
  private readonly scroller: HTMLElement;
  private readonly autoScroll: AutoScroller;
  private readonly welcome: HTMLElement;
  private readonly chips: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly announcer = new Announcer();

  constructor(root: HTMLElement, private readonly host: Host<ChatToHost>) {
    this.select = h('select', { className: 'aq-select', attrs: { id: 'aq-application' } });
    this.select.addEventListener('change', () => {
      if (this.select.value !== '') {
        host.post({ type: 'selectApplication', applicationId: this.select.value });
      }
    });
    const header = h(
      'div',
      { className: 'aq-header' },
      h('label', { className: 'aq-select-label', text: 'Application', attrs: { for: 'aq-application' } }),
      this.select,
      button('clear', 'Clear conversation', 'clear-all', () => host.post({ type: 'clear' })),
      button('export', 'Export as Markdown', 'markdown', () => host.post({ type: 'exportMarkdown' })),
    );

    this.transcript = new Transcript({
      surface: 'chat',
      post: (message) => host.post(message),
      rendered: () => this.autoScroll.update(),
      changed: () => this.autoScroll.updateSoon(),
      applicationLabel: (id) => this.applications.find((app) => app.id === id)?.label ?? id,
    });
    this.welcome = h('div', { className: 'aq-welcome', attrs: { 'data-role': 'welcome' } });
    this.scroller = h('div', { className: 'aq-transcript', attrs: { tabindex: '0', 'aria-label': 'Conversation' } }, this.welcome, this.transcript.element);
    this.autoScroll = new AutoScroller(this.scroller);
    attachContentHandlers(this.scroller, (message) => host.post(message));

    this.chips = h('ul', { className: 'aq-chips', attrs: { 'aria-label': 'Attachments', 'data-role': 'attachments' } });
    this.input = h('textarea', {
      className: 'aq-input',
      attrs: { 'aria-label': 'Ask the application', placeholder: 'Ask a question (Enter to send, Shift+Enter for a new line)', rows: '2' },
    });
    this.input.value = host.loadState().draft ?? '';
    this.input.addEventListener('input', () => this.saveDraft());
    this.input.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.sendButton = button('send', 'Send', 'send', () => this.onSendButton(), { text: 'Send', className: 'aq-button aq-send' });
    const composer = h(
      'div',
      { className: 'aq-composer' },
      this.chips,
      this.input,
      h(
        'div',
        { className: 'aq-composer-bar' },
        button('attach-selection', 'Attach selection', 'selection', () => host.post({ type: 'attach', kind: 'selection' })),
        button('attach-file', 'Attach file', 'file-add', () => host.post({ type: 'attach', kind: 'file' })),
        h('span', { className: 'aq-spacer' }),
        this.sendButton,
      ),
    );

    root.replaceChildren(h('main', { className: 'aq-chat' }, header, this.scroller, composer, this.announcer.element));
    this.renderApplications();
    this.renderAttachments([]);
    this.refresh();
  }

  setState(state: SurfaceState): void {
    this.applications = state.applications;
    this.currentApplicationId = state.currentApplicationId;
    this.renderApplications();
    this.transcript.setTurns(state.turns);
    this.renderAttachments(state.attachments);
    this.refresh();
    this.autoScroll.reset();
  }

  startTurn(turn: Turn): void {
    this.transcript.add(turn);
    if (turn.role === 'user') {
      this.autoScroll.reset();
    }
    this.refresh();
  }

  append(turnId: string, text: string, queued: number): void {
    this.transcript.assistant(turnId)?.append(text, queued);
  }

  setHttpStatus(turnId: string, httpStatus: number): void {
    this.transcript.assistant(turnId)?.setHttpStatus(httpStatus);
  }

  endTurn(message: TurnEnd): void {
    const said = this.transcript.end(message);
    if (said !== undefined) {
      this.announcer.say(said);
    }
    this.refresh();
  }

  /** The application list or the current application changed (the host's `applications`). */
  setApplications(applications: readonly ApplicationInfo[], currentApplicationId: string | undefined): void {
    this.applications = applications;
    this.currentApplicationId = currentApplicationId;
    this.renderApplications();
    this.refresh();
  }

  /** The pending attachments changed (the host's `attachments`). */
  setAttachments(attachments: readonly AttachmentInfo[]): void {
    this.renderAttachments(attachments);
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!this.transcript.streaming) {
        this.send();
      }
    } else if (event.key === 'Escape' && this.transcript.streaming) {
      event.preventDefault();
      this.host.post({ type: 'stop' });
    }
  }

  private onSendButton(): void {
    if (this.transcript.streaming) {
      this.host.post({ type: 'stop' });
    } else {
      this.send();
    }
    this.input.focus();
  }

  private send(): void {
    const text = this.input.value.trim();
    if (text === '') {
      return;
    }
    if (text.length > MAX_WEBVIEW_TEXT) {
      // Kept in the composer: a question this long would be dropped on the way to the host.
      this.input.setCustomValidity(`This question is ${text.length.toLocaleString('en-US')} characters long; the limit is ${MAX_WEBVIEW_TEXT.toLocaleString('en-US')}. Attach the file instead.`);
      this.input.reportValidity();
      return;
    }
    this.input.setCustomValidity('');
    this.host.post({ type: 'send', text });
    this.input.value = '';
    this.saveDraft();
  }

  private saveDraft(): void {
    this.host.saveState({ draft: this.input.value });
  }

  /** Send ⇄ Stop, and the welcome shown only for an empty transcript. */
  private refresh(): void {
    const streaming = this.transcript.streaming;
    if (streaming) {
      retarget(this.sendButton, 'stop', 'Stop', 'debug-stop', 'Stop');
    } else {
      retarget(this.sendButton, 'send', 'Send', 'send', 'Send');
    }
    this.sendButton.classList.toggle('aq-button-stop', streaming);
    this.renderWelcome();
  }

  private renderApplications(): void {
    const options = this.applications.map((app) => h('option', { text: app.hasKey ? app.label : `${app.label} (no API key)`, attrs: { value: app.id } }));
    if (this.applications.length === 0) {
      options.push(h('option', { text: 'No applications', attrs: { value: '' } }));
    } else if (this.currentApplicationId === undefined || !this.applications.some((app) => app.id === this.currentApplicationId)) {
      options.unshift(h('option', { text: 'Choose an application…', attrs: { value: '' } }));
    }
    this.select.replaceChildren(...options);
    this.select.value = this.currentApplicationId ?? '';
    if (this.select.value !== (this.currentApplicationId ?? '')) {
      this.select.value = '';
    }
    this.select.disabled = this.applications.length === 0;
  }

  private renderWelcome(): void {
    this.welcome.hidden = this.transcript.size > 0;
    if (this.welcome.hidden) {
      return;
    }
    const current = this.applications.find((app) => app.id === this.currentApplicationId);
    const parts: Node[] = [
      h('h2', { className: 'aq-welcome-title' }, icon('comment-discussion'), h('span', { text: 'Ask your application' })),
      h('p', { text: 'Choose an application above and type a question below. Attach the editor selection or the current file to send it along as context. Answers stream in as they are written; Escape stops one.' }),
    ];
    if (this.applications.length === 0) {
      parts.push(h('p', { text: 'No applications yet: run “Application Query: Add Application…” from the Command Palette, and set applicationQuery.baseUrl in your user settings.' }));
    } else if (current === undefined) {
      parts.push(h('p', { text: 'Choose an application to start.' }));
    } else if (!current.hasKey) {
      parts.push(
        h('p', { text: `No API key is stored for ${current.label}.` }),
        button('set-api-key', 'Set API Key…', 'key', () => this.host.post({ type: 'setApiKey' }), { text: 'Set API Key…' }),
      );
    }
    this.welcome.replaceChildren(...parts);
  }

  private renderAttachments(attachments: readonly AttachmentInfo[]): void {
    this.chips.replaceChildren(
      ...attachments.map((attachment) =>
        h(
          'li',
          { className: 'aq-chip', attrs: { 'data-attachment-id': attachment.id } },
          icon(attachment.kind === 'file' ? 'file' : 'selection'),
          h('span', { className: 'aq-chip-label', text: attachment.label }),
          button('remove-attachment', `Remove ${attachment.label}`, 'close', () => this.host.post({ type: 'removeAttachment', id: attachment.id }), {
            className: 'aq-chip-remove',
          }),
        ),
      ),
    );
    this.chips.hidden = attachments.length === 0;
  }
}
