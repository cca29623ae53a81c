import type { ApplicationInfo, PanelToHost, SurfaceState, Turn } from '../shared/protocol';
import { formatBytes } from '../shared/format';
import { button, h, setData, setHidden, setText } from './dom';
import type { Host } from './host';
import { attachContentHandlers } from './render';
import type { SurfaceView } from './surface';
import { Announcer, type AssistantTurnView, AutoScroller, Transcript, type TurnEnd } from './transcript';

/** The answer panel of a command query: title, status, the question, and the streamed answer. */
export class PanelView implements SurfaceView {
  private applications: readonly ApplicationInfo[] = [];
  private readonly title: HTMLElement;
  private readonly httpStatus: HTMLElement;
  private readonly bytes: HTMLElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly transcript: Transcript;
  private readonly autoScroll: AutoScroller;
  private readonly announcer = new Announcer();

  constructor(root: HTMLElement, host: Host<PanelToHost>) {
    this.title = h('h1', { className: 'aq-panel-title', attrs: { 'data-role': 'title' } });
    this.httpStatus = h('span', { className: 'aq-badge', attrs: { 'data-role': 'http-status' } });
    this.bytes = h('span', { className: 'aq-meta', attrs: { 'data-role': 'bytes' } });
    this.stopButton = button('stop', 'Stop', 'debug-stop', () => host.post({ type: 'stop' }), { text: 'Stop' });
    const header = h(
      'div',
      { className: 'aq-panel-header' },
      h('div', { className: 'aq-panel-heading' }, this.title, this.httpStatus, this.bytes),
      h(
        'div',
        { className: 'aq-toolbar' },
        this.stopButton,
        button('copy-answer', 'Copy', 'copy', () => {
          const answer = this.transcript.lastAssistant();
          if (answer !== undefined) host.post({ type: 'copyAnswer', turnId: answer.turn.id });
        }, {
          text: 'Copy',
          className: 'aq-button aq-button-secondary',
        }),
        button('export', 'Open as Markdown', 'markdown', () => host.post({ type: 'exportMarkdown' }), { text: 'Open as Markdown', className: 'aq-button aq-button-secondary' }),
      ),
    );
    this.transcript = new Transcript({
      surface: 'panel',
      post: (message) => host.post(message),
      rendered: () => {
        this.autoScroll.update();
        this.refresh();
      },
      changed: () => {
        this.autoScroll.updateSoon();
        this.refresh();
      },
      applicationLabel: (id) => this.applications.find((app) => app.id === id)?.label ?? id,
    });
    const main = h('div', { className: 'aq-transcript aq-panel-body', attrs: { tabindex: '0', 'aria-label': 'Answer' } }, this.transcript.element);
    this.autoScroll = new AutoScroller(main);
    attachContentHandlers(main, (message) => host.post(message));
    root.replaceChildren(h('main', { className: 'aq-panel' }, header, main, this.announcer.element));
    this.refresh();
  }

  setState(state: SurfaceState): void {
    this.applications = state.applications;
    this.title.textContent = state.title;
    document.title = state.title;
    this.transcript.setTurns(state.turns);
    this.refresh();
    this.autoScroll.reset();
  }

  startTurn(turn: Turn): void {
    this.transcript.add(turn);
    this.refresh();
  }

  append(turnId: string, text: string, queued: number): void {
    const view = this.transcript.assistant(turnId);
    view?.append(text, queued);
    this.showBytes(view);
  }

  /** The header's size follows the latest answer as it grows. */
  private showBytes(view: AssistantTurnView | undefined): void {
    if (view !== undefined && view === this.transcript.lastAssistant()) {
      setText(this.bytes, formatBytes(view.bytes));
      setHidden(this.bytes, false);
    }
  }

  setHttpStatus(turnId: string, httpStatus: number): void {
    this.transcript.assistant(turnId)?.setHttpStatus(httpStatus);
    this.refresh();
  }

  endTurn(message: TurnEnd): void {
    const said = this.transcript.end(message);
    if (said !== undefined) {
      this.announcer.say(said);
    }
    this.refresh();
  }

  /** Header: status, bytes and Stop follow the latest answer. */
  private refresh(): void {
    const answer = this.transcript.lastAssistant();
    const status = answer?.httpStatus;
    setText(this.httpStatus, status === undefined ? '' : `HTTP ${status}`);
    setHidden(this.httpStatus, status === undefined);
    // A forced toggle changes nothing (no mutation) when the class is already as asked.
    this.httpStatus.classList.toggle('aq-badge-error', status !== undefined && status >= 400);
    setText(this.bytes, answer === undefined ? '' : formatBytes(answer.bytes));
    setHidden(this.bytes, answer === undefined || (answer.bytes === 0 && status === undefined));
    setHidden(this.stopButton, !this.transcript.streaming);
    setData(document.body, 'status', answer?.status ?? 'empty');
  }
}
