/**
 * Keeps several answers written to one text stream (an output channel) from interleaving: the
 * first section opened writes live; sections opened later buffer their text and follow, whole and
 * in the order they were opened, as soon as every section before them has ended. A section that
 * ends while waiting is written out in one piece when its turn comes.
 */
export class SerialSections {
  private readonly queue: Section[] = [];

  /** `write` receives the text in its final order (callers batch it as they like). */
  constructor(private readonly write: (text: string) => void) {}

  /** Opens a section at the end of the queue. */
  open(): SectionWriter {
    const section = new Section();
    this.queue.push(section);
    return {
      begin: (header) => {
        if (section.state !== 'opened') {
          return;
        }
        section.state = 'begun';
        this.emit(section, header);
      },
      append: (text) => {
        if (section.state !== 'ended') {
          this.emit(section, text);
        }
      },
      end: (footer) => {
        if (section.state === 'ended') {
          return;
        }
        section.state = 'ended';
        this.emit(section, footer);
        this.advance();
      },
    };
  }

  /** How many sections are open or waiting (for tests and diagnostics). */
  get size(): number {
    return this.queue.length;
  }

  private emit(section: Section, text: string): void {
    if (text === '') {
      return;
    }
    if (this.queue[0] === section) {
      this.write(text);
    } else {
      section.pending.push(text);
    }
  }

  /** Drops ended sections from the head, writing out what each next section buffered meanwhile. */
  private advance(): void {
    while (this.queue.length > 0 && this.queue[0].state === 'ended') {
      this.queue.shift();
      const next = this.queue[0];
      if (next !== undefined && next.pending.length > 0) {
        this.write(next.pending.join(''));
        next.pending = [];
      }
    }
  }
}

/** One section's handle: `begin` once with its header, `append` its text, `end` once with its footer (text after the end is ignored). */
export interface SectionWriter {
  begin(header: string): void;
  append(text: string): void;
  end(footer: string): void;
}

class Section {
  state: 'opened' | 'begun' | 'ended' = 'opened';
  /** Text written while another section held the stream (kept as pieces: no quadratic joins). */
  pending: string[] = [];
}
