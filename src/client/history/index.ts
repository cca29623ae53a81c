// History's one entry point for the host and the tests: exchange.ts (the record and reading it
// back), recorder.ts (recording one as it happens), store.ts (keeping them), masking.ts (no key in
// any of it), storedText.ts (reading a large stored file without parsing it whole).
export { ENVIRONMENT_NAME_MAX_CHARS, isReplayable, parseExchange, replayTarget } from './exchange';
export type { Exchange, RecordedOutcome, ReplayTarget, RecordedRequest, RecordedResponse, RecordedTimings, Surface } from './exchange';
export { maskHeaders } from './masking';
export { ExchangeRecorder, headersRecord, RAW_BODY_CAP_BYTES, recordingSink, REQUEST_BODY_CAP_BYTES, StreamCapture, TEXT_CAP_BYTES } from './recorder';
export type { ExchangeEnd, ExchangeStart } from './recorder';
export { HISTORY_MAX_BYTES, HISTORY_MAX_ENTRIES, HistoryStore } from './store';
export type { HistoryLimits, HistoryStorage, Subscription } from './store';
export { StoredHistoryText } from './storedText';
