import type { ApplicationInfo, AttachmentInfo, HeldGroup, SurfaceState, Turn } from '../shared/protocol';
import type { TurnEnd } from './transcript';

/** What main.ts drives: one method per host message. */
export interface SurfaceView {
  setState(state: SurfaceState): void;
  startTurn(turn: Turn): void;
  append(turnId: string, text: string): void;
  hold(turnId: string, groups: readonly HeldGroup[]): void;
  provideHeld(turnId: string, id: number, text: string): void;
  setHttpStatus(turnId: string, httpStatus: number): void;
  endTurn(message: TurnEnd): void;
  setApplications(applications: readonly ApplicationInfo[], currentApplicationId: string | undefined): void;
  setAttachments(attachments: readonly AttachmentInfo[]): void;
}
