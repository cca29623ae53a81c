import * as vscode from 'vscode';
import { TextBatcher } from '../../shared/batcher';
import { formatBytes, formatDuration } from '../../shared/format';
import { SerialSections } from './serialSections';
import { ANSWER_CHANNEL } from '../platform/log';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInfo, QuerySink } from '../query/types';

/**
 * The "Application Query" output channel. Each answer gets a header line, its text as it streams
 * and a footer line. Appends are batched (at most one every 50 ms, whatever the chunk rate). Two
 * answers never interleave: the first to start writes live, later ones buffer and follow in order.
 */
export class AnswerChannel implements vscode.Disposable {
  private readonly channel: vscode.OutputChannel;
  private readonly batcher: TextBatcher;
  private readonly sections: SerialSections;

  constructor() {
    this.channel = vscode.window.createOutputChannel(ANSWER_CHANNEL);
    this.batcher = new TextBatcher((text) => this.channel.append(text), 50);
    this.sections = new SerialSections((text) => this.batcher.push(text));
  }

  /** A sink for one query. */
  sink(): QuerySink {
    const section = this.sections.open();
    return {
      start: (info) => {
        section.begin(header(info));
        this.channel.show(true);
      },
      status: () => undefined,
      append: (text) => section.append(text),
      end: (outcome) => {
        section.end(footer(outcome));
        // The footer says the answer is complete: show it now rather than with the next batch.
        this.batcher.flushNow();
      },
    };
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
  const size = `${outcome.textChars.toLocaleString('en-US')} characters (${formatBytes(outcome.wireBytes)} received), ${formatDuration(outcome.durationMs)}`;
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
