import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInfo, QuerySink } from '../query/types';

/** Keeps an answer's text (up to a cap) to check expectations against; what is past the cap is dropped, and `cut` says so. */
export class CollectSink implements QuerySink {
  text = '';
  cut = false;

  constructor(private readonly capChars: number) {}

  start(_info: QueryInfo): void {}

  status(_httpStatus: number): void {}

  append(text: string): void {
    if (this.cut) return;
    const room = this.capChars - this.text.length;
    if (text.length > room) {
      this.text += text.slice(0, room);
      this.cut = true;
    } else {
      this.text += text;
    }
  }

  end(_outcome: QueryOutcome): void {}
}
