import type * as vscode from 'vscode';
import { maskCredentials, maskSecrets } from '../../shared/secretMask';
import type { Turn } from '../../shared/protocol';
import type { ConversationTurn } from '../../shared/conversation';

const STATE_KEY = 'applicationQuery.chatHistory';
/** The most turns kept per application; older ones are dropped first. */
const MAX_TURNS = 200;

type Stored = Record<string, Turn[]>;

/**
 * Chat transcripts per application, in the workspace state (questions and answers only: never a
 * key, never attachment contents). Every text is masked with the known keys (any encoded form, and
 * any `Bearer` token) when it is saved and when it is loaded. A turn that was still streaming when
 * the window went away is restored as interrupted, with what had arrived.
 */
export class ChatHistory {
  private readonly data: Stored;

  /** `secrets` gives the keys to mask (the session's known keys). */
  constructor(
    private readonly memento: vscode.Memento,
    private readonly secrets: () => readonly string[] = () => [],
  ) {
    const raw = memento.get<unknown>(STATE_KEY);
    this.data = {};
    if (typeof raw === 'object' && raw !== null) {
      for (const [appId, turns] of Object.entries(raw as Record<string, unknown>)) {
        if (Array.isArray(turns)) {
          this.data[appId] = turns.filter(isTurn).map((t) =>
            maskTurn(
              t.status === 'streaming' ? { ...t, status: 'interrupted', message: 'The window was closed or reloaded before the answer finished.', retryable: true } : t,
              this.secrets(),
            ),
          );
        }
      }
    }
  }

  /** The transcript of one application (the live array: callers mutate turns in place, then save). */
  turns(applicationId: string): Turn[] {
    return (this.data[applicationId] ??= []);
  }

  /** Adds a turn. */
  add(turn: Turn): void {
    const turns = this.turns(turn.applicationId);
    turns.push(turn);
    if (turns.length > MAX_TURNS) {
      turns.splice(0, turns.length - MAX_TURNS);
    }
  }

  /** Removes a turn. */
  remove(applicationId: string, turnId: string): void {
    const turns = this.turns(applicationId);
    const index = turns.findIndex((t) => t.id === turnId);
    if (index >= 0) {
      turns.splice(index, 1);
    }
  }

  /** Forgets one application's transcript. */
  clear(applicationId: string): void {
    this.data[applicationId] = [];
  }

  /** Writes everything to the workspace state, masked (the live turns are left as they are). */
  async save(): Promise<void> {
    const secrets = this.secrets();
    const masked: Stored = {};
    for (const [appId, turns] of Object.entries(this.data)) {
      masked[appId] = turns.map((turn) => maskTurn(turn, secrets));
    }
    await this.memento.update(STATE_KEY, masked);
  }
}

/** A copy of a turn with every text it holds masked: known keys everywhere, `Bearer` tokens too in what the user sent and in messages about failures. */
function maskTurn(turn: Turn, secrets: readonly string[]): Turn {
  const mask = (text: string): string => maskCredentials(text, secrets);
  return {
    ...turn,
    text: turn.role === 'user' ? mask(turn.text) : maskSecrets(turn.text, secrets),
    ...(turn.message === undefined ? {} : { message: mask(turn.message) }),
    ...(turn.attachments === undefined ? {} : { attachments: turn.attachments.map(mask) }),
  };
}

function isTurn(value: unknown): value is Turn {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const t = value as Record<string, unknown>;
  return typeof t.id === 'string' && (t.role === 'user' || t.role === 'assistant') && typeof t.text === 'string' && typeof t.applicationId === 'string';
}

/** The transcript as Markdown (for export and for `${history}`). */
export function transcriptMarkdown(title: string, turns: readonly Turn[]): string {
  const parts = [`# ${title}`, ''];
  for (const turn of turns) {
    if (turn.role === 'user') {
      parts.push(`## You`, '', turn.text, ...(turn.attachments?.length ? ['', `_Context: ${turn.attachments.join(', ')}_`] : []), '');
    } else {
      const note = turn.status === 'done' ? '' : `\n\n_(${turn.status}${turn.httpStatus ? `, HTTP ${turn.httpStatus}` : ''}${turn.message ? `: ${turn.message}` : ''})_`;
      parts.push(`## Answer`, '', turn.text + note, '');
    }
  }
  return parts.join('\n');
}

/** Prior turns as the conversation `${history}` shows (shared/conversation.ts writes the text). */
export function conversationTurns(turns: readonly Turn[]): ConversationTurn[] {
  return turns.filter((t) => t.role === 'user' || t.status === 'done' || t.text.length > 0).map((t) => ({ role: t.role === 'user' ? 'user' : 'assistant', text: t.text }));
}
