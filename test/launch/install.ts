// `node out/test/launch/install.js [versions…]`: installs the code-server versions the lanes use
// (all of them by default) ahead of a run, so CI can time the installs as a phase of their own.
import { ensureCodeServer, selectVersions } from './codeServer';
import { secondsSince } from './util';

async function main(): Promise<void> {
  const versions = selectVersions(process.argv.slice(2).join(',') || process.env.AQ_VSCODE_VERSIONS);
  for (const version of versions) {
    const started = Date.now();
    const { command, args } = await ensureCodeServer(version);
    console.log(`code-server ${version} ready (${secondsSince(started)} s): ${[command, ...args].join(' ')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
