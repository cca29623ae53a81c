import type { SurfaceState, Turn } from '../shared/protocol';
import type { TurnEnd } from './transcript';

/** What main.ts drives on every surface: one method per message of the host's to every surface (`HostToPage`). */
export interface SurfaceView {
  setState(state: SurfaceState): void;
  startTurn(turn: Turn): void;
  /** `queued`: how much more of the answer the host holds (see the `append` message). */
  append(turnId: string, text: string, queued: number): void;
  setHttpStatus(turnId: string, httpStatus: number): void;
  endTurn(message: TurnEnd): void;
}
