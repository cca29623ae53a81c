// What the VS Code Chat benchmark's suite (lmSuite.ts, inside the extension host) and its section
// (lm.ts, in Node) share. No `vscode` import here: the section loads this in plain Node.

/** One streamed answer: `rate` chunks a second for `chunks` chunks. */
export interface LmScenario {
  readonly id: string;
  readonly label: string;
  readonly rate: number;
  readonly chunks: number;
}

/** A fast stream (the throughput goal) and a stream at an LLM's pace (the latency goal). */
export const LM_SCENARIOS: readonly LmScenario[] = [
  { id: 'rate-fast', label: '10,000 chunks/s', rate: 10_000, chunks: 30_000 },
  { id: 'rate-paced', label: '50 chunks/s (a model typing)', rate: 50, chunks: 150 },
];

/** Chunk `n` of a stream: 8 bytes, one of them a 3-byte character, so decoding is exercised. */
export function lmChunk(n: number): string {
  return `€${String(n % 100_000).padStart(5, '0')}`;
}

/** One path through one scenario, as the suite measured it. */
export interface LmRun {
  readonly path: 'participant' | 'model';
  readonly scenario: string;
  readonly outcome: string;
  readonly complete: boolean;
  readonly pieces: number;
  readonly calls: number;
  readonly seconds: number;
  /** Milliseconds from a piece reaching the sinks to the chat call that carried it. */
  readonly latencyP50: number;
  readonly latencyP95: number;
}
