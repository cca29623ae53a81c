import type { ApplicationInfo, CompareToHost, SurfaceState, Turn } from '../shared/protocol';
import { formatBytes, formatDuration } from '../shared/format';
import { button, h, setData, setHidden, setText } from './dom';
import type { Host } from './host';
import { attachContentHandlers } from './render';
import type { SurfaceView } from './surface';
import { Announcer, AssistantTurnView, AutoScroller, announcement, questionSummary, type TurnEnd } from './transcript';

/** How often a streaming column's elapsed time is refreshed. */
const CLOCK_MS = 250;

/**
 * The Compare panel: one question, one column per application (and environment), each answer
 * streaming with the answer panel's renderer. Each column is a labelled region with its
 * application, environment, HTTP status, time to first byte, total time and length, and its own
 * Stop, Copy and "Diff with…"; Stop All stops every column. The end of each answer is announced
 * once. Columns sit side by side and stack in a narrow editor group (CSS).
 */
export class CompareView implements SurfaceView {
  private applications: readonly ApplicationInfo[] = [];
  private readonly title: HTMLElement;
  private readonly question: HTMLElement;
  private readonly questionText: HTMLElement;
  private readonly stopAll: HTMLButtonElement;
  private readonly grid: HTMLElement;
  private readonly announcer = new Announcer();
  private readonly columns = new Map<string, Column>();
  private clock: ReturnType<typeof setInterval> | undefined;
  private built = 0;

  constructor(root: HTMLElement, private readonly host: Host<CompareToHost>) {
    this.title = h('h1', { className: 'aq-panel-title', attrs: { 'data-role': 'title' } });
    this.stopAll = button('stop', 'Stop All', 'debug-stop', () => host.post({ type: 'stop' }), { text: 'Stop All' });
    this.questionText = h('div', { className: 'aq-user-text', attrs: { 'data-role': 'question' } });
    this.question = h('details', { className: 'aq-question aq-compare-question' }, h('summary', {}, h('span', { className: 'aq-turn-label', text: 'Question' })), this.questionText);
    const header = h('div', { className: 'aq-panel-header' }, h('div', { className: 'aq-panel-heading' }, this.title), h('div', { className: 'aq-toolbar' }, this.stopAll));
    this.grid = h('div', { className: 'aq-columns', attrs: { 'data-role': 'columns' } });
    attachContentHandlers(this.grid, (message) => host.post(message));
    root.replaceChildren(h('main', { className: 'aq-panel aq-compare' }, header, this.question, this.grid, this.announcer.element));
  }

  setState(state: SurfaceState): void {
    this.applications = state.applications;
    this.title.textContent = state.title;
    document.title = state.title;
    const question = state.turns.find((turn) => turn.role === 'user');
    this.questionText.textContent = question?.text ?? '';
    this.question.hidden = question === undefined;
    const summary = this.question.querySelector('summary');
    summary?.replaceChildren(h('span', { className: 'aq-turn-label', text: 'Question' }), h('span', { className: 'aq-question-summary', text: questionSummary(question?.text ?? '') }));
    for (const column of this.columns.values()) column.answer.dispose();
    this.columns.clear();
    this.grid.replaceChildren();
    const answers = state.turns.filter((turn) => turn.role === 'assistant');
    for (const turn of answers) this.addColumn(turn, answers.length);
    this.refresh();
  }

  startTurn(turn: Turn): void {
    if (turn.role !== 'assistant') return;
    this.addColumn(turn, this.columns.size + 1);
    this.refresh();
  }

  append(turnId: string, text: string, queued: number): void {
    this.columns.get(turnId)?.append(text, queued);
  }

  setHttpStatus(turnId: string, httpStatus: number): void {
    this.columns.get(turnId)?.setHttpStatus(httpStatus);
  }

  endTurn(message: TurnEnd): void {
    const column = this.columns.get(message.turnId);
    if (column === undefined) return;
    const wasStreaming = column.answer.status === 'streaming';
    column.end(message);
    if (wasStreaming) this.announcer.add(`${column.name}: ${announcement(message.status, column.answer.httpStatus)}`);
    this.refresh();
  }

  private addColumn(turn: Turn, count: number): void {
    // Every column built gets a fresh number, so heading ids stay unique also when a column is replaced.
    const index = this.built++;
    const label = this.applications.find((app) => app.id === turn.applicationId)?.label ?? turn.applicationId;
    const column = new Column(turn, label, index, count, (message) => this.host.post(message), () => this.refresh());
    const existing = this.columns.get(turn.id);
    if (existing !== undefined) {
      existing.answer.dispose();
      existing.element.replaceWith(column.element);
    } else {
      this.grid.append(column.element);
    }
    this.columns.set(turn.id, column);
    for (const other of this.columns.values()) other.setCount(this.columns.size);
  }

  /** Stop All shows while any column streams; a clock keeps the streaming columns' times current. */
  private refresh(): void {
    const streaming = [...this.columns.values()].some((column) => column.answer.status === 'streaming');
    setHidden(this.stopAll, !streaming);
    setData(document.body, 'status', streaming ? 'streaming' : this.columns.size === 0 ? 'empty' : 'done');
    if (streaming && this.clock === undefined) {
      this.clock = setInterval(() => {
        for (const column of this.columns.values()) column.tick();
      }, CLOCK_MS);
    } else if (!streaming && this.clock !== undefined) {
      clearInterval(this.clock);
      this.clock = undefined;
    }
  }
}

/** One answer of the comparison, with its facts and actions. */
class Column {
  readonly element: HTMLElement;
  readonly answer: AssistantTurnView;
  readonly name: string;
  private readonly http: HTMLElement;
  private readonly firstByte: HTMLElement;
  private readonly total: HTMLElement;
  private readonly length: HTMLElement;
  private readonly stop: HTMLButtonElement;
  private readonly diff: HTMLButtonElement;
  private readonly scroller: AutoScroller;
  private firstByteAt: number | undefined;

  constructor(
    private readonly turn: Turn,
    label: string,
    index: number,
    count: number,
    post: Host<CompareToHost>['post'],
    changed: () => void,
  ) {
    this.name = turn.environment === undefined ? label : `${label} on ${turn.environment}`;
    const headingId = `aq-column-${index}`;
    const heading = h('h2', { className: 'aq-column-title', attrs: { id: headingId, 'data-role': 'column-title' }, text: label });
    const environment = h('span', { className: 'aq-badge aq-badge-environment', attrs: { id: `${headingId}-environment`, 'data-role': 'environment' }, text: turn.environment ?? '' });
    environment.hidden = turn.environment === undefined;
    this.http = h('span', { className: 'aq-badge', attrs: { 'data-role': 'http-status' } });
    this.firstByte = h('span', { className: 'aq-meta', attrs: { 'data-role': 'first-byte' } });
    this.total = h('span', { className: 'aq-meta', attrs: { 'data-role': 'total' } });
    this.length = h('span', { className: 'aq-meta', attrs: { 'data-role': 'length' } });
    this.stop = button('stop', `Stop ${this.name}`, 'debug-stop', () => post({ type: 'stop', turnId: turn.id }));
    // The name starts with what the button shows (a voice user says what they see), then whose answer it diffs.
    this.diff = button('diff', `Diff with… (the answer of ${this.name} against another)`, 'diff', () => post({ type: 'diff', turnId: turn.id }), { text: 'Diff with…', className: 'aq-button aq-button-secondary' });
    const copy = button('copy-answer', `Copy the answer of ${this.name}`, 'copy', () => post({ type: 'copyAnswer', turnId: turn.id }));
    const header = h(
      'div',
      { className: 'aq-column-header' },
      h('div', { className: 'aq-column-heading' }, heading, environment, this.http),
      h('div', { className: 'aq-column-facts' }, this.firstByte, this.total, this.length),
      h('div', { className: 'aq-toolbar' }, this.stop, copy, this.diff),
    );
    this.answer = new AssistantTurnView(turn, {
      surface: 'panel',
      post,
      rendered: () => this.answerChanged(changed, (scroller) => scroller.update()),
      changed: () => this.answerChanged(changed, (scroller) => scroller.updateSoon()),
      applicationLabel: () => label,
    });
    const body = h('div', { className: 'aq-column-body', attrs: { tabindex: '0', 'aria-label': `Answer from ${this.name}` } }, this.answer.element);
    this.scroller = new AutoScroller(body);
    // Named by its application and its environment: one application on two environments makes two regions of different names.
    const labelledBy = turn.environment === undefined ? headingId : `${headingId} ${headingId}-environment`;
    this.element = h('section', { className: 'aq-column', attrs: { 'data-turn-id': turn.id, 'aria-labelledby': labelledBy, 'data-role': 'column' } }, header, body);
    this.setCount(count);
    this.showFacts();
  }

  /** The answer's DOM changed: the column follows it (`follow`: at once in a frame, or in the next one) and shows its facts. */
  private answerChanged(changed: () => void, follow: (scroller: AutoScroller) => void): void {
    follow(this.scroller);
    this.showFacts();
    changed();
  }

  /** "Diff with…" needs another column. */
  setCount(count: number): void {
    this.diff.hidden = count < 2;
  }

  append(text: string, queued: number): void {
    this.firstByteAt ??= Date.now();
    this.answer.append(text, queued);
    this.showFacts();
  }

  setHttpStatus(status: number): void {
    this.answer.setHttpStatus(status);
    this.showFacts();
  }

  end(message: TurnEnd): void {
    this.turn.firstByteMs = message.firstByteMs;
    this.turn.durationMs = message.durationMs;
    this.answer.end(message);
    this.showFacts();
  }

  /** The streaming clock. */
  tick(): void {
    if (this.answer.status === 'streaming') this.showFacts();
  }

  /** Status, first byte, total and length: measured by the host once the answer ended, the view's own clock until then. */
  private showFacts(): void {
    const status = this.answer.httpStatus;
    setText(this.http, status === undefined ? '' : `HTTP ${status}`);
    setHidden(this.http, status === undefined);
    this.http.classList.toggle('aq-badge-error', status !== undefined && status >= 400);
    const streaming = this.answer.status === 'streaming';
    const firstByte = this.turn.firstByteMs ?? (this.firstByteAt === undefined ? undefined : this.firstByteAt - this.turn.startedAt);
    setText(this.firstByte, firstByte === undefined ? '' : `first byte ${formatDuration(Math.max(0, firstByte))}`);
    setHidden(this.firstByte, firstByte === undefined);
    const total = this.turn.durationMs ?? (streaming ? Date.now() - this.turn.startedAt : undefined);
    setText(this.total, total === undefined ? '' : `${streaming ? 'elapsed' : 'total'} ${formatDuration(Math.max(0, total))}`);
    setHidden(this.total, total === undefined);
    setText(this.length, formatBytes(this.answer.bytes));
    setHidden(this.stop, !streaming);
    setData(this.element, 'status', this.answer.status);
  }
}
