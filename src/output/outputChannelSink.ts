import * as vscode from 'vscode';
import { TextBatcher } from '../core/batcher';
import { formatBytes, formatDuration } from '../core/format';
import { ANSWER_CHANNEL } from '../log/log';
import type { QueryInfo, QueryOutcome, QuerySink } from '../query/types';

/** One query's part of the channel: live when it is at the head of the queue, buffered otherwise. */
interface Section {
  info: QueryInfo | undefined;
  pending: string;
  status?: number;
  ended?: QueryOutcome;
}

/**
 * The "Application Query" output channel. Each answer gets a header line, its text as it streams
 * and a footer line. Appends are batched (at most one every 50 ms, whatever the chunk rate). Two
 * answers never interleave: the first to start writes live, later ones buffer and follow in order.
 */
export class AnswerChannel implements vscode.Disposable {
  private readonly channel: vscode.OutputChannel;
  private readonly queue: Section[] = [];
  private readonly batcher: TextBatcher;

  constructor() {
    this.channel = vscode.window.createOutputChannel(ANSWER_CHANNEL);
    this.batcher = new TextBatcher((text) => this.channel.append(text), 50);
  }

  /** A sink for one query. */
  sink(): QuerySink {
    const section: Section = { info: undefined, pending: '' };
    this.queue.push(section);
    return {
      start: (info) => {
        section.info = info;
        if (this.queue[0] === section) {
          this.batcher.push(header(info));
        }
        this.channel.show(true);
      },
      status: (status) => {
        section.status = status;
      },
      append: (text) => {
        if (this.queue[0] === section) {
          this.batcher.push(text);
        } else {
          section.pending += text;
        }
      },
      end: (outcome) => {
        section.ended = outcome;
        if (this.queue[0] === section) {
          this.finishHead();
        }
      },
    };
  }

  /** Writes the head's footer, then lets the next answers in the queue catch up. */
  private finishHead(): void {
    while (this.queue.length > 0 && this.queue[0].ended) {
      const done = this.queue.shift()!;
      this.batcher.push(footer(done.ended!));
      const next = this.queue[0];
      if (next?.info) {
        this.batcher.push(header(next.info) + next.pending);
        next.pending = '';
      }
    }
    this.batcher.flushNow();
  }

  /** Reveals the channel. */
  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.batcher.dispose();
    this.channel.dispose();
  }
}

function header(info: QueryInfo): string {
  const time = new Date(info.startedAt).toLocaleTimeString();
  const about = [info.question && `“${oneLine(info.question, 80)}”`, info.contextLabel && `with ${info.contextLabel}`].filter(Boolean).join(' ');
  return `━━ ${info.applicationLabel} · ${time}${about ? ' · ' + about : ''}\n`;
}

function footer(outcome: QueryOutcome): string {
  const status = outcome.httpStatus !== undefined ? `HTTP ${outcome.httpStatus}` : 'no response';
  const size = `${formatBytes(outcome.bytes)}, ${formatDuration(outcome.durationMs)}`;
  switch (outcome.kind) {
    case 'done':
      return `\n━━ ${status} · ${size} · complete${outcome.warning ? ' · warning: ' + outcome.warning : ''}\n\n`;
    case 'stopped':
      return `\n━━ ${status} · ${size} · stopped: ${outcome.message ?? 'by you'} (partial answer kept)\n\n`;
    case 'interrupted':
      return `\n━━ ${status} · ${size} · interrupted: ${outcome.message ?? ''} (partial answer kept)\n\n`;
    case 'error':
      return `\n━━ ${status} · ${size} · failed: ${outcome.message ?? ''}\n\n`;
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}
