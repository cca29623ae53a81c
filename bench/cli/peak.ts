// Preloaded (`node --require`) into a process the bench measures: at exit it writes the process's
// peak resident memory to stderr as one line the bench reads.
import { writeSync } from 'node:fs';
import { PEAK_PREFIX } from './shared';

process.on('exit', () => {
  writeSync(2, `\n${PEAK_PREFIX}${process.resourceUsage().maxRSS * 1024}\n`);
});
